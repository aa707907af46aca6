"""`python -m groundls.cli`: the command line."""

import sys

from groundls.cli.main import main

sys.exit(main())
