#!/usr/bin/env bash
# Checks that a recording keeps the files its program maps privately (libc,
# the loader, the program) in REC/files instead of copying every page of each
# new mapping: the exit checkpoint of a program that exits at once stores a
# few dozen pages, not the ~500 of libc; a core from it still holds libc's
# code byte for byte as in the file; `replay --check` is OK; and the kept copy
# serves the pages once the original file is replaced; the processes of a
# pipeline share one copy. SLSDBG_KEEP_FILES=off copies the pages as before.
source "$(dirname "$0")/record_lib.sh"
GDB=$(command -v gdb) || die "gdb not found"

# A private copy of the program, so that the test can replace it afterwards.
cp "$PROGRAMS/rec_compute" "$WORK/prog"
"$WORK/prog" 1000 >"$WORK/native.out" || die "native run failed"
"$SLSDBG" record -o "$WORK/rec" -- "$WORK/prog" 1000 >/dev/null 2>"$WORK/err" || { cat "$WORK/err"; die "record failed"; }
ls "$WORK/rec/files" >"$WORK/files.txt" 2>&1 || die "no REC/files in the recording"
[ "$(stat -c %a "$WORK/rec/files")" = 700 ] || die "REC/files is not 0700"
libc=$(ldd "$WORK/prog" | awk '/libc.so/ {print $3}')
libc_key="$(stat -c '%d' "$libc")-$(stat -c '%i' "$libc")"
[ -f "$WORK/rec/files/$libc_key" ] || die "libc ($libc_key) is not kept: $(cat "$WORK/files.txt")"
cmp -s "$libc" "$WORK/rec/files/$libc_key" || die "the kept libc differs from $libc"
[ "$(stat -c %a "$WORK/rec/files/$libc_key")" = 600 ] || die "a kept file is not 0600"

pages() { "$SLSDBG" info --json "$1" | "$PY" -c 'import json,sys; print(sum(c["dirty_pages"] for c in json.load(sys.stdin)["checkpoints"]))'; }
kept_pages=$(pages "$WORK/rec")
SLSDBG_KEEP_FILES=off "$SLSDBG" record -o "$WORK/copied" -- "$WORK/prog" 1000 >/dev/null 2>"$WORK/err" || { cat "$WORK/err"; die "record with SLSDBG_KEEP_FILES=off failed"; }
[ ! -e "$WORK/copied/files" ] || die "SLSDBG_KEEP_FILES=off still kept files"
copied_pages=$(pages "$WORK/copied")
echo "pages stored: $kept_pages with kept files, $copied_pages without"
[ "$kept_pages" -lt 150 ] || die "$kept_pages pages stored with kept files (libc copied anyway?)"
[ "$copied_pages" -gt 400 ] || die "only $copied_pages pages stored without kept files: the comparison means nothing"

"$SLSDBG" replay --check "$WORK/rec" >"$WORK/check" 2>&1 || { cat "$WORK/check"; die "replay --check failed"; }
grep -q '^OK' "$WORK/check" || die "replay --check: $(cat "$WORK/check")"

# libc's code in a core of the last checkpoint, as GDB reads it, is the file's.
core_matches_libc() {
  "$SLSDBG" dump "$WORK/rec" --last -q -o "$WORK/core" || die "dump failed"
  "$GDB" -nx -batch -ex 'info proc mappings' "$WORK/prog" "$WORK/core" >"$WORK/maps" 2>&1
  read -r start _ _ offset _ < <(grep "libc.so" "$WORK/maps" | awk '$4 != "0x0"' | head -1)
  [ -n "${start:-}" ] || die "no libc code mapping in the core: $(cat "$WORK/maps")"
  "$GDB" -nx -batch -ex "dump binary memory $WORK/code $start $start+16384" "$WORK/prog" "$WORK/core" >/dev/null 2>&1
  dd if="$libc" of="$WORK/file_code" bs=4096 skip=$((offset / 4096)) count=4 status=none
  cmp -s "$WORK/code" "$WORK/file_code" || die "libc code in the core differs from the file at offset $offset"
}
core_matches_libc

# The program replaced by another file (a rebuild): the kept copy still serves.
mv "$WORK/prog" "$WORK/prog.old" && cp "$PROGRAMS/rec_exit0" "$WORK/prog"
"$SLSDBG" restore "$WORK/rec" --at 0 >"$WORK/restored.out" 2>"$WORK/restore.err" || { cat "$WORK/restore.err"; die "restore after replacing the program failed"; }
cmp -s "$WORK/native.out" "$WORK/restored.out" || die "restored run printed $(cat "$WORK/restored.out"), native $(cat "$WORK/native.out")"
# The processes of one tree share one copy of each file: a member's kept
# files are hard links to the root's.
"$SLSDBG" record -o "$WORK/tree" -- sh -c 'cat /dev/null | cat' >/dev/null 2>"$WORK/err" || { cat "$WORK/err"; die "record of a pipeline failed"; }
members=$(ls "$WORK/tree/members" 2>/dev/null | wc -l)
[ "$members" -ge 2 ] || die "the pipeline recorded $members members"
linked=0
for f in "$WORK"/tree/members/*/files/*; do
  [ -f "$f" ] || continue
  root_copy="$WORK/tree/files/$(basename "$f")"
  [ -f "$root_copy" ] && [ "$(stat -c %i "$f")" = "$(stat -c %i "$root_copy")" ] || die "$f is not a link to the root's copy"
  linked=$((linked + 1))
done
[ "$linked" -ge 2 ] || die "the members keep $linked files"
echo "record_kept_files: OK"
