#!/usr/bin/env bash
# The replay's tracer thread runs on its tracee's CPU (process/cpu.h
# pin_tracer_to_cpu: a ptrace stop whose wake-up crosses CPUs costs ~3x one
# that does not), and GDB, which is no tracee, keeps the CPUs slsdbg started
# with. Asked from inside GDB at a rewound moment (its parent is slsdbg): the
# replayed process is the one child of slsdbg whose TracerPid is a thread of
# slsdbg; both must allow exactly one CPU, the same, and GDB's CPUs must be
# the test's own. Then a reverse-stepi must still answer.
. "$(dirname "$0")/replay_gdb_lib.sh"
ncpu=$("$PY" -c 'import os; print(len(os.sched_getaffinity(0)))')
if [ "$ncpu" -lt 2 ]; then echo "replay_tracer_cpu: not exercised (one CPU allowed here)"; exit 0; fi
rec=$WORK/loop.rec
record "$rec" 10 "$PROGRAMS/rec_compute"
cat >"$WORK/check.py" <<'PYEOF'
import os, gdb
def allowed(tid):
    for line in open("/proc/%d/status" % tid):
        if line.startswith("Cpus_allowed_list:"):
            return line.split(":", 1)[1].strip()
server = os.getppid()
threads = [int(t) for t in os.listdir("/proc/%d/task" % server)]
kids = set()
for t in threads:
    try: kids.update(int(p) for p in open("/proc/%d/task/%d/children" % (server, t)).read().split())
    except OSError: pass
kids.discard(os.getpid())
traced = []
for k in sorted(kids):
    for line in open("/proc/%d/status" % k):
        if line.startswith("TracerPid:") and int(line.split()[1]) in threads:
            traced.append((k, int(line.split()[1])))
print("TRACED %s" % traced)
for k, tracer in traced:
    print("TRACEE %d %s TRACER %d %s" % (k, allowed(k), tracer, allowed(tracer)))
print("GDB %s" % allowed(os.getpid()))
PYEOF
out=$WORK/gdb.out
replay_gdb "$rec" "$out" -ex 'break main' -ex 'continue' -ex 'next' -ex 'next' \
  -ex "source $WORK/check.py" -ex 'reverse-stepi' -ex 'info registers rip'
"$PY" - "$out" <<'PYEOF' || exit 1
import os, re, sys
text = open(sys.argv[1]).read()
pairs = re.findall(r"^TRACEE (\d+) (\S+) TRACER (\d+) (\S+)$", text, re.M)
if not pairs: sys.exit("FAIL: no traced child of slsdbg found:\n" + text)
for tracee, tcpus, tracer, rcpus in pairs:
    if re.search(r"[-,]", tcpus): sys.exit("FAIL: the replayed process %s may run on CPUs %s, not one" % (tracee, tcpus))
    if rcpus != tcpus:
        sys.exit("FAIL: the tracer thread %s runs on CPUs %s, its tracee %s on %s" % (tracer, rcpus, tracee, tcpus))
own = sorted(os.sched_getaffinity(0))
gdb = re.search(r"^GDB (\S+)$", text, re.M).group(1)
want = ",".join(str(c) for c in own)
def expand(spec):
    out = []
    for part in spec.split(","):
        a, _, b = part.partition("-")
        out.extend(range(int(a), int(b or a) + 1))
    return out
if expand(gdb) != own: sys.exit("FAIL: GDB runs on CPUs %s, not the test's %s" % (gdb, want))
if not re.search(r"^rip\s+0x[0-9a-f]+\s+0x[0-9a-f]+ <main\+\d+>", text, re.M):
    sys.exit("FAIL: no reverse-stepi answer inside main:\n" + text)
print("replay_tracer_cpu: OK (tracer and tracee on CPU %s; GDB on %s)" % (pairs[0][1], gdb))
PYEOF
