#!/usr/bin/env bash
# Static checks and unit tests of the VS Code extension: tsc --noEmit, eslint (zero warnings),
# prettier, node:test unit tests. Installs the npm dev dependencies if they are missing.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ ! -x node_modules/.bin/tsc ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund
fi

echo "== tsc --noEmit"
npx --no-install tsc --noEmit -p tsconfig.json
echo "== eslint (zero warnings)"
npx --no-install eslint --max-warnings 0 src test scripts
echo "== prettier --check"
npx --no-install prettier --check .
echo "== unit tests (node:test)"
rm -rf out
npx --no-install tsc -p tsconfig.json
node --test --test-reporter=spec out/test/unit/
