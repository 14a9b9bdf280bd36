#!/usr/bin/env bash
# Runs the libFuzzer target for the GDB remote protocol parser and dispatcher
# (gdbserver/protocol/fuzz/packet_fuzzer.cc) for N seconds (default 60).
# Builds it with clang into build-fuzz/ (ASan + UBSan, coverage on the whole
# protocol library), seeds a corpus with well-formed packets, and prints one
# JSON object: {"fuzzer":..., "seconds":N, "runs":R, "corpus":C, "crashes":K}.
# Exit status is nonzero when the fuzzer found a crash (its input is kept in
# build-fuzz/fuzz-artifacts/).
# Usage: bench/fuzz_gdbproto.sh [SECONDS]
set -euo pipefail
seconds=${1:-60}
[[ "$seconds" =~ ^[0-9]+$ ]] || { echo "fuzz_gdbproto: SECONDS must be a whole number, got '$seconds'" >&2; exit 2; }
root=$(cd "$(dirname "$0")/.." && pwd)
out=${FUZZ_BUILD_DIR:-$root/build-fuzz}

bash "$root/scripts/install-deps.sh" fuzz
command -v clang++ >/dev/null || { echo "fuzz_gdbproto: clang++ not found after scripts/install-deps.sh fuzz" >&2; exit 2; }
CC=clang CXX=clang++ cmake -S "$root" -B "$out" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS="-fsanitize=fuzzer-no-link,address,undefined" >/dev/null
cmake --build "$out" --target gdbproto_packet_fuzzer -j 2 >/dev/null
fuzzer=$out/gdbserver/protocol/gdbproto_packet_fuzzer
[ -x "$fuzzer" ] || { echo "fuzz_gdbproto: the compiler has no -fsanitize=fuzzer; nothing built" >&2; exit 2; }

corpus=$out/fuzz-corpus
artifacts=$out/fuzz-artifacts
mkdir -p "$corpus" "$artifacts"
i=0
for p in 'qSupported:multiprocess+;swbreak+;hwbreak+' '?' 'g' 'p10' 'P10=0010400000000000' 'm401000,4' \
         'M601000,2:abcd' 'x601000,8' 'X601000,1:}]' 'Z0,401010,1' 'z0,401010,1' 'Z2,601000,4' 'c' 's' \
         'vCont;s:65;c' 'bc' 'bs' 'Hg66' 'qC' 'qfThreadInfo' 'qXfer:features:read:target.xml:0,fff' \
         'qXfer:auxv:read::0,100' 'qRcmd,68656c70' 'vRun;;6331' 'qRRCmd:when:-1' 'QStartNoAckMode' 'D'; do
  sum=0
  for ((k = 0; k < ${#p}; k++)); do printf -v c '%d' "'${p:k:1}"; sum=$(((sum + c) % 256)); done
  printf '$%s#%02x' "$p" "$sum" >"$corpus/seed$i"
  i=$((i + 1))
done

log=$out/fuzz.log
set +e
"$fuzzer" -max_total_time="$seconds" -print_final_stats=1 -artifact_prefix="$artifacts/" "$corpus" >"$log" 2>&1
rc=$?
set -e
runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
crashes=$(find "$artifacts" -type f | wc -l)
printf '{"fuzzer":"gdbproto_packet_fuzzer","seconds":%s,"runs":%s,"corpus":%s,"crashes":%s}\n' \
  "$seconds" "${runs:-0}" "$(find "$corpus" -type f | wc -l)" "$crashes"
[ "$rc" -eq 0 ] && [ "$crashes" -eq 0 ] || { echo "fuzz_gdbproto: finding, see $log" >&2; exit 1; }
