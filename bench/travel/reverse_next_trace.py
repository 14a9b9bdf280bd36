#!/usr/bin/env python3
"""bench/travel/reverse_next_trace.py BUILD REC OUT [--record] [--debug] [--ts]

reverse_far.py's GDB script (seed 1, 3 moments, revstep_far 4000 300, 10 ms
checkpoints) on one kept recording REC (--record makes it), with `x/i $pc`
and `monitor stats` around each reverse-next, the whole GDB output in OUT
(--debug: SLSDBG_LOG=debug; --ts: each line time-stamped). Prints the wall
and CPU time of the session and each reverse-next / reverse-stepi latency,
so two builds can be compared on the same recording (A/B, alternating).
Count a reverse-next's runs from the checkpoint in OUT with --debug:
"a session from checkpoint"."""
import os, random, re, shutil, subprocess, sys, time
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from reverse import gdb_script, line_of, timed_gdb_lines as timed, parse_times
build, rec, out = sys.argv[1:4]
args = sys.argv[4:]
slsdbg = os.path.join(build, "cli", "slsdbg")
prog = os.path.join(build, "tests", "programs", "revstep_far")
src = os.path.join(os.path.dirname(os.path.dirname(HERE)), "tests", "programs", "revstep_far.c")
mark = line_of("FAR_MARK", src)
if "--record" in args:
    if os.path.exists(rec):
        if not os.path.exists(os.path.join(rec, "catalog.db")):
            raise SystemExit(f"{rec} exists and is no recording: not replaced")
        shutil.rmtree(rec)
    subprocess.run([slsdbg, "record", "-o", rec, "--interval", "10", "--", prog, "4000", "300"], check=True,
                   stdout=subprocess.DEVNULL)
moments_n = 3  # as goals.py --quick
seed = 1
rng = random.Random(seed)
outer = 4000
lines = [f"break revstep_far.c:{mark}", f"ignore 1 {outer // 4}", "continue", "disable 1"]
room = (outer - outer // 4 - 10) // moments_n
for _ in range(moments_n):
    lines += ["enable 1", f"ignore 1 {rng.randrange(1, max(room, 2))}", "continue", "disable 1", 'printf "AT i=%ld\\n", i']
    s = rng.randrange(0, 41)
    if s:
        lines.append(f"stepi {s}")
    lines += ['python print("MOMENT s=%d")' % s]
    lines += timed("RS1", "reverse-stepi")
    for _ in range(4):
        lines += timed("RS", "reverse-stepi")
    for _ in range(3):
        lines += ["python print('BEGIN RN', time.monotonic())", "x/i $pc", "monitor stats"]
        lines += timed("RN", "reverse-next")
        lines += ["x/i $pc", "monitor stats"]
script = out + ".gdb"
gdb_script(script, lines)
env = dict(os.environ)
if "--debug" in args:
    env["SLSDBG_LOG"] = "debug"
c0 = os.times()
t0 = time.monotonic()
with open(out, "w") as f:
    p = subprocess.Popen([slsdbg, "replay", rec, "--", "-nx", "-batch", "-x", script], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env, text=True)
    for line in p.stdout:
        f.write("%.4f %s" % (time.monotonic() - t0, line) if "--ts" in args else line)
    p.wait()
txt = open(out).read()
if "--ts" in args: txt = re.sub(r"^[0-9.]+ ", "", txt, flags=re.M)
rn = parse_times(txt, "RN"); rs = parse_times(txt, "RS1") + parse_times(txt, "RS")
import statistics
c1 = os.times()
print("wall %.2f cpu %.2f load %s" % (time.monotonic() - t0, c1.children_user + c1.children_system - c0.children_user - c0.children_system, os.getloadavg()[0]))
print("RN", ["%.1f" % (x * 1000) for x in rn], "p50 %.1f" % (statistics.median(rn) * 1000))
print("RS", ["%.1f" % (x * 1000) for x in rs], "p50 %.1f" % (statistics.median(rs) * 1000))
