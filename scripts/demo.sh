#!/usr/bin/env bash
# The main job: record a bundled example, rewind it under GDB, dump a core.
# Steps that are not built yet say so instead of pretending.
set -euo pipefail
build=${1:-build}
slsdbg="$build/cli/slsdbg"
"$slsdbg" --version
"$slsdbg" --help
