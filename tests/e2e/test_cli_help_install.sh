#!/usr/bin/env bash
# `make install`'s rules (cmake --install) put slsdbg, its restorer and the
# bash completion into a DESTDIR; the completion offers the subcommands and
# each command's options (from its --help);
# `slsdbg help CMD` prints CMD's --help.
set -u
stage=$(mktemp -d "${TMPDIR:-/tmp}/slsdbg-install.XXXXXX")
trap 'rm -rf "$stage"' EXIT
DESTDIR="$stage" cmake --install "$SLSDBG_BUILD_DIR" --prefix /usr >/dev/null || { echo "cmake --install failed"; exit 1; }
for f in usr/bin/slsdbg usr/bin/slsdbg-restorer usr/share/bash-completion/completions/slsdbg; do
  [ -e "$stage/$f" ] || { echo "not installed: $f"; exit 1; }
done
words=$(bash -c 'source "$1"; COMP_WORDS=(slsdbg re); COMP_CWORD=1; _slsdbg; echo "${COMPREPLY[*]}"' _ \
  "$stage/usr/share/bash-completion/completions/slsdbg")
[[ "$words" == *record* && "$words" == *replay* && "$words" == *restore* ]] || { echo "completion offers '$words'"; exit 1; }
opts=$(PATH="$stage/usr/bin:$PATH" bash -c 'source "$1"; COMP_WORDS=(slsdbg restore --); COMP_CWORD=2; _slsdbg; echo "${COMPREPLY[*]}"' _ \
  "$stage/usr/share/bash-completion/completions/slsdbg")
[[ "$opts" == *--at* && "$opts" == *--repeat* && "$opts" == *--lazy* ]] || { echo "option completion offers '$opts'"; exit 1; }
"$stage/usr/bin/slsdbg" --version | grep -q '^slsdbg ' || { echo "installed slsdbg does not run"; exit 1; }
[ "$("$SLSDBG" help replay)" = "$("$SLSDBG" replay --help)" ] || { echo "help replay differs from replay --help"; exit 1; }
"$SLSDBG" help frob 2>/dev/null; [ $? = 2 ] || { echo "help of an unknown command: not exit 2"; exit 1; }
echo "cli_help_install: OK"
