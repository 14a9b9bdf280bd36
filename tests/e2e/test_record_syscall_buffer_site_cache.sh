#!/usr/bin/env bash
# Checks that libc's syscall sites are checked once per libc build and then
# read from the per-user cache (recorder/record/syscallbuf_site_cache.h):
#  1. The first recording of grep (SLSDBG_CACHE_DIR empty) checks libc and
#     saves <cache>/libc-sites/<build-id>, 0600 in a 0700 directory; the
#     second reads it, patches as many sites, and its `replay --check` is OK
#     with grep's output equal to native.
#  2. A damaged cache file is not used: the sites are checked again and the
#     file is rewritten. SLSDBG_CACHE_DIR=off: checked, nothing written.
source "$(dirname "$0")/record_lib.sh"
GREP=$(command -v grep)
seq 1 2000 | sed 's/$/ a line of text/' >"$WORK/small.txt"
"$GREP" -c x "$WORK/small.txt" >"$WORK/native.out"
export SLSDBG_CACHE_DIR="$WORK/cache"

rec() {  # NAME: records grep with debug logs into $WORK/NAME.err
  SLSDBG_LOG=debug "$SLSDBG" record -o "$WORK/$1.rec" -- "$GREP" -c x "$WORK/small.txt" >"$WORK/$1.out" 2>"$WORK/$1.err" ||
    { tail -5 "$WORK/$1.err"; die "$1: record failed"; }
  cmp -s "$WORK/native.out" "$WORK/$1.out" || die "$1: grep printed $(cat "$WORK/$1.out"), natively $(cat "$WORK/native.out")"
}
how() { grep -o "libc's sites [a-z ]*" "$WORK/$1.err" | head -1; }
patched() { grep -o '[0-9]* glibc sites patched$' "$WORK/$1.err" | tail -1; }

rec first
[ "$(how first)" = "libc's sites checked" ] || die "first recording: '$(how first)', not checked"
files=("$WORK"/cache/libc-sites/*)
[ ${#files[@]} = 1 ] && [ -f "${files[0]}" ] || die "no cache file: ${files[*]}"
[ "$(stat -c %a "$WORK/cache/libc-sites")" = 700 ] || die "the cache directory is not 0700"
[ "$(stat -c %a "${files[0]}")" = 600 ] || die "the cache file is not 0600"
rec second
[ "$(how second)" = "libc's sites from the cache" ] || die "second recording: '$(how second)', not from the cache"
[ -n "$(patched first)" ] && [ "$(patched first)" = "$(patched second)" ] ||
  die "sites patched: '$(patched first)' checked, '$(patched second)' from the cache"
grep -q '"reason": *"patch"' <("$SLSDBG" info --json "$WORK/second.rec") || die "no patch checkpoint in the second recording"
"$SLSDBG" replay --check "$WORK/second.rec" >"$WORK/check" 2>&1 || { cat "$WORK/check"; die "replay --check failed"; }
grep -q '^OK' "$WORK/check" || die "replay --check: $(cat "$WORK/check")"

echo "slsdbg-libc-sites 1 damaged" >"${files[0]}"
rec damaged
[ "$(how damaged)" = "libc's sites checked" ] || die "damaged cache: '$(how damaged)'"
[ "$(patched damaged)" = "$(patched first)" ] || die "damaged cache: '$(patched damaged)' patched"
grep -q damaged "${files[0]}" && die "the damaged cache file was not rewritten"
rm -rf "$WORK/cache"
SLSDBG_CACHE_DIR=off rec off
[ "$(how off)" = "libc's sites checked" ] || die "SLSDBG_CACHE_DIR=off: '$(how off)'"
[ ! -e "$WORK/cache" ] || die "SLSDBG_CACHE_DIR=off wrote a cache"
echo "OK: $(patched first) checked, as many from the cache"
