#!/usr/bin/env bash
# ctest `vscode_extension`: installs the extension's npm packages from the
# committed lockfile when they are missing or stale, compiles it (tsc), and
# runs the mocha DebugClient suite against this build's slsdbg ($SLSDBG,
# $PROGRAMS and $SLSDBG_SOURCE_DIR come from ctest).
set -euo pipefail
cd "$(dirname "$0")/.."
command -v node >/dev/null || { echo "node is not installed (scripts/install-deps.sh installs nodejs)"; exit 1; }
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --prefer-offline --no-audit --no-fund --loglevel=error
fi
npx tsc -p .
exec npx mocha --timeout 60000 --reporter spec 'out/test/*.test.js'
