#!/usr/bin/env bash
# Creates (once) a Python virtual environment holding the LLDB pinned in
# scripts/lldb-reverse-requirements.txt, a client with reverse execution,
# and prints its directory: DIR/bin/lldb and DIR/bin/python (`import lldb`).
# Where: $SLSDBG_LLDB_VENV, else ~/.cache/slsdbg/lldb-reverse-venv (outside
# the tree, shared by every build). Needs python3 with venv (Debian:
# python3-venv, scripts/install-deps.sh) and PyPI the first time.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
reqs=$here/lldb-reverse-requirements.txt
dir=${SLSDBG_LLDB_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/slsdbg/lldb-reverse-venv}
stamp=$dir/.slsdbg-requirements
if [ -x "$dir/bin/lldb" ] && [ -f "$stamp" ] && cmp -s "$reqs" "$stamp" &&
   "$dir/bin/python" -c 'import lldb' 2>/dev/null; then
  echo "$dir"
  exit 0
fi
python=$(command -v python3) || { echo "lldb-reverse-venv: python3 is not installed" >&2; exit 1; }
if [ -e "$dir" ] && [ ! -f "$dir/pyvenv.cfg" ]; then
  echo "lldb-reverse-venv: $dir exists and is no virtual environment; not replacing it" >&2
  exit 1
fi
rm -rf "$dir"  # an older or broken one
mkdir -p "$(dirname "$dir")"
"$python" -m venv "$dir" >&2 ||
  { echo "lldb-reverse-venv: '$python -m venv' failed (Debian: apt-get install python3-venv)" >&2; exit 1; }
"$dir/bin/python" -m pip install --quiet --disable-pip-version-check -r "$reqs" >&2 ||
  { echo "lldb-reverse-venv: pip could not install $(grep -v '^#' "$reqs")" >&2; exit 1; }
"$dir/bin/python" -c 'import lldb' ||
  { echo "lldb-reverse-venv: the installed package has no lldb Python module" >&2; exit 1; }
cp "$reqs" "$stamp"
echo "$dir"
