#!/usr/bin/env bash
# Checks that real programs record cleanly with --verify and behave exactly as
# natively: python3 -c (json, random, time), the sqlite3 shell running a small
# script against a database file, gzip, sort and sha256sum.
source "$(dirname "$0")/record_lib.sh"
seq 1 5000 | sort -R --random-source=<(yes) >"$WORK/lines.txt"
record_and_compare python /dev/null -- "$PY" -c 'import json, os, random, time
d = {"n": sum(range(100000)), "r": len(str(random.random())), "t": time.time() > 0, "pid": os.getpid() > 0}
print(json.dumps(d, sort_keys=True))'
cat >"$WORK/script.sql" <<'SQL'
create table t(a integer, b text);
insert into t select value, 'row' || value from generate_series(1, 2000);
select count(*), sum(a), max(b) from t;
SQL
if ! sqlite3 :memory: 'select value from generate_series(1,1)' >/dev/null 2>&1; then
  sed -i 's/select value, .row. || value from generate_series(1, 2000)/values (1, "row1"), (2, "row2"), (3, "row3")/' "$WORK/script.sql"
fi
rm -f "$WORK/db.sqlite"
sqlite3 "$WORK/db.sqlite" <"$WORK/script.sql" >"$WORK/sqlite.expected"
rm -f "$WORK/db.sqlite"
"$SLSDBG" record -o "$WORK/sqlite.rec" --verify -- sqlite3 "$WORK/db.sqlite" <"$WORK/script.sql" >"$WORK/sqlite.out" 2>"$WORK/sqlite.err" \
  || { cat "$WORK/sqlite.err"; die "sqlite3 under the recorder failed"; }
cmp -s "$WORK/sqlite.expected" "$WORK/sqlite.out" || die "sqlite3 output differs"
"$SLSDBG" info "$WORK/sqlite.rec" --json | "$PY" -c 'import json,sys; j=json.load(sys.stdin); assert j["finished"] and len(j["checkpoints"])>=2' \
  || die "sqlite3 recording incomplete"
record_and_compare gzip "$WORK/lines.txt" -- gzip -c -n
record_and_compare sort "$WORK/lines.txt" -- sort -n
record_and_compare sha256sum "$WORK/lines.txt" -- sha256sum
echo "test_record_real_programs: OK"
