#!/usr/bin/env bash
# Checks the dependency direction of docs/architecture.md on #include lines:
# store/ knows nothing of ptrace or the layers above it; the gdbserver protocol
# layer includes nothing of engine/; recorder/ does not reach up into engine/.
# Inside engine/ the order is bisect -> replay -> restore -> dump, inside
# recorder/ record -> capture; process/ sits below both recorder/ and engine/:
# a lower part never includes a higher one. bench/ may include anything; nothing includes bench/.
set -u
root=${1:?source dir}
bad=0
check() {  # check DIR PATTERN WHY [EXCLUDE-GLOB]
  local hits
  hits=$(grep -rnE --include='*.h' --include='*.cc' --include='*.c' ${4:+--exclude="$4"} "$2" "$root/$1" 2>/dev/null || true)
  if [ -n "$hits" ]; then
    echo "layering violation: $3"; echo "$hits"; bad=1
  fi
}
check store '#include *[<"](sys/ptrace\.h|process/|recorder/|engine/|gdbserver/|cli/)' "store/ must not use ptrace or upper layers"
check common '#include *"(store|process|recorder|engine|gdbserver|cli)/' "common/ depends on nothing"
check recorder '#include *"(engine|gdbserver|cli)/' "recorder/ must not include engine/, gdbserver/ or cli/"
check engine '#include *"(gdbserver|cli)/' "engine/ must not include gdbserver/ or cli/"
check engine '#include *"recorder/' "engine/ uses process/, not recorder/ (a test may record a program)" '*_test.cc'
check gdbserver/protocol '#include *"(engine|recorder|store)/|sys/ptrace\.h' "gdbserver/protocol speaks only to the Target interface"
check ui '#include *"(recorder|gdbserver|cli|engine/(bisect|replay|restore))/' "ui/ depends only on engine/dump, store/ and common/ (bisect, restore, replay run as the CLI)"
check ui/model '#include *[<"]Q' "ui/model has no Qt (the widgets live in ui/app)"
check engine/dump '#include *"engine/(restore|replay|bisect)/' "engine/dump is below restore, replay and bisect"
check engine/restore '#include *"engine/(replay|bisect)/' "engine/restore is below replay and bisect"
check engine/replay '#include *"engine/bisect/' "engine/replay is below bisect"
check process '#include *"(recorder|engine|gdbserver|cli)/' "process/ depends only on store/ and common/"
check recorder/capture '#include *"recorder/record/' "recorder/capture is below record"
for top in common store process recorder engine gdbserver plugins ui cli tests; do
  [ -d "$root/$top" ] && check "$top" '#include *"bench/' "nothing outside bench/ includes bench/"
done
if [ "$bad" -ne 0 ]; then exit 1; fi
echo "layering: OK"
