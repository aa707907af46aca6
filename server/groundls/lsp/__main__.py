"""`python -m groundls.lsp`: run the language server (how editor clients start it)."""

import sys

from groundls.lsp.main import main

sys.exit(main())
