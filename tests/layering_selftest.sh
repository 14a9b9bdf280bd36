#!/usr/bin/env bash
# layering.sh must fail on each kind of violation: plants one at a time in a
# temporary copy of the sources and expects a nonzero exit.
set -u
src=${1:?source dir}
here=$(dirname "$0")
tmp=$(mktemp -d "${TMPDIR:-/tmp}/layering-self.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
for d in common store process recorder engine gdbserver bench cli; do cp -r "$src/$d" "$tmp/$d"; done
bash "$here/layering.sh" "$tmp" >/dev/null || { echo "the clean copy already fails"; exit 1; }
failed=0
plant() {  # plant FILE INCLUDE: add the include, expect failure, take it out
  cp "$tmp/$1" "$tmp/$1.orig"
  echo "#include \"$2\"" >>"$tmp/$1"
  if bash "$here/layering.sh" "$tmp" >/dev/null; then echo "not caught: $1 includes $2"; failed=1; fi
  mv "$tmp/$1.orig" "$tmp/$1"
}
plant store/recording.h recorder/record/record_session.h
plant common/result.h store/recording.h
plant recorder/record/record_session.h engine/replay/timeline.h
plant engine/dump/backtrace.h cli/command.h
plant engine/dump/backtrace.h engine/restore/restore.h
plant engine/restore/restore.h engine/replay/timeline.h
plant engine/replay/timeline.h engine/bisect/bisect.h
plant process/task.h recorder/capture/checkpoint_capture.h
plant process/task.h engine/replay/timeline.h
plant recorder/capture/checkpoint_capture.h recorder/record/record_session.h
plant engine/replay/timeline.h bench/timeline/bench.h
plant engine/replay/timeline.h recorder/record/record_session.h
plant cli/command.h bench/dump/bench.h
plant gdbserver/protocol/target.h engine/replay/timeline.h
[ "$failed" = 0 ] && echo "layering_selftest: every planted violation caught"
exit "$failed"
