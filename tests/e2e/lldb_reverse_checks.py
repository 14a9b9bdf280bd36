"""LLDB's own reverse execution against `slsdbg replay --server`, through its
Python API (run by the virtual environment's python that
scripts/lldb-reverse-venv.sh makes). Each check starts a server on one
recording, connects with `gdb-remote`, moves with the commands a user types
(`process continue --reverse`, `--forward`, plain `continue`, which keeps
the last direction; `process interrupt`) and asserts what LLDB then shows:
stop reasons, threads, values, source lines. Used by
test_replay_lldb_reverse.sh.

usage: python lldb_reverse_checks.py SLSDBG CHECK REC PROGRAM [ARGS...]
"""
import os
import re
import subprocess
import sys
import time

import lldb


def fail(msg):
    sys.exit("FAIL: " + msg)


class Session:
    """One `slsdbg replay REC --server 127.0.0.1:0` and an LLDB connected to it."""

    def __init__(self, slsdbg, rec, program):
        self.server = subprocess.Popen([slsdbg, "replay", rec, "--server", "127.0.0.1:0"],
                                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = self.server.stdout.readline()
        m = re.match(r"listening on (\S+)", line)
        if not m:
            fail("server did not start: %r %s" % (line, self.server.stderr.read()))
        self.dbg = lldb.SBDebugger.Create()
        self.dbg.SetAsync(False)
        self.ci = self.dbg.GetCommandInterpreter()
        self.cmd("target create " + program)
        self.cmd("settings set plugin.process.gdb-remote.packet-timeout 300")
        self.cmd("gdb-remote " + m.group(1))
        self.target = self.dbg.GetSelectedTarget()
        self.process = self.target.GetProcess()
        if not self.process.IsValid() or self.process.GetState() != lldb.eStateStopped:
            fail("lldb did not connect")

    def cmd(self, command, ok=True):
        r = lldb.SBCommandReturnObject()
        self.ci.HandleCommand(command, r)
        text = (r.GetOutput() or "") + (r.GetError() or "")
        print("(lldb) %s\n%s" % (command, text.rstrip()))
        if ok and not r.Succeeded():
            fail("'%s' failed: %s" % (command, text))
        return text

    def move(self, command):
        """A continue command; returns (stop reason, thread, seconds)."""
        start = time.time()
        self.cmd(command)
        took = time.time() - start
        thread = self.process.GetSelectedThread()
        print("  -> %s in %.2f s" % (thread.GetStopDescription(200), took))
        return thread.GetStopReason(), thread, took

    def value(self, name):
        v = self.process.GetSelectedThread().GetFrameAtIndex(0).FindVariable(name)
        if not v.IsValid():
            v = self.target.FindFirstGlobalVariable(name)
        if not v.IsValid() or v.GetError().Fail():
            fail("no value for %s" % name)
        return v.GetValueAsSigned()

    def line(self):
        return self.process.GetSelectedThread().GetFrameAtIndex(0).GetLineEntry().GetLine()

    def pc(self):
        return self.process.GetSelectedThread().GetFrameAtIndex(0).GetPC()

    def close(self):
        self.process.Kill()
        lldb.SBDebugger.Destroy(self.dbg)
        try:
            rc = self.server.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.server.kill()
            fail("the server did not exit after the kill")
        if rc != 0:
            fail("the server exited %d: %s" % (rc, self.server.stderr.read()))


def expect(cond, what):
    if not cond:
        fail(what)
    print("ok: " + what)


def line_of(program_source, marker):
    for n, text in enumerate(open(program_source), 1):
        if "/* %s */" % marker in text:
            return n
    fail("no marker %s in %s" % (marker, program_source))


def check_steps(s, source, total):
    """travel_leaf is called with v = 0, 1, 1, 4, 2, 7: reverse and forward
    continues visit them in order, a plain continue keeps the direction,
    both ends of history stop as 'history boundary'."""
    start_pc = s.pc()
    s.cmd("breakpoint set -n travel_leaf")
    seen = []
    for _ in range(3):
        reason, _, _ = s.move("continue")
        expect(reason == lldb.eStopReasonBreakpoint, "forward continue stops at the breakpoint")
        seen.append(s.value("v"))
    expect(seen == [0, 1, 1], "forward: v = 0, 1, 1 (got %s)" % seen)
    reason, _, _ = s.move("process continue --reverse")
    expect(reason == lldb.eStopReasonBreakpoint and s.value("v") == 1, "reverse continue: the second call (v = 1)")
    reason, _, _ = s.move("continue")
    expect(reason == lldb.eStopReasonBreakpoint and s.value("v") == 0, "plain continue keeps reverse: v = 0")
    reason, _, _ = s.move("continue")
    expect(reason == lldb.eStopReasonHistoryBoundary, "reverse past the first call: history boundary")
    expect(s.pc() == start_pc, "the boundary is the recording's first moment (%#x)" % start_pc)
    reason, _, _ = s.move("process continue --forward")
    expect(reason == lldb.eStopReasonBreakpoint and s.value("v") == 0, "forward again from the start: v = 0")
    s.cmd("breakpoint disable 1")
    reason, _, _ = s.move("continue")
    expect(reason == lldb.eStopReasonHistoryBoundary, "forward to the end: history boundary")
    expect(s.target.FindFirstGlobalVariable("travel_steps_done").GetValueAsSigned() == total,
           "at the end travel_steps_done = %d (the recorded run printed it)" % total)
    s.cmd("breakpoint enable 1")
    reason, _, _ = s.move("process continue --reverse")
    expect(reason == lldb.eStopReasonBreakpoint and s.value("v") == 7, "reverse from the end: the last call (v = 7)")


def check_watch_threads(s, source, n):
    """A worker thread stores its loop counter into `counter` n times; from
    main's read after the join, reverse continues with a watchpoint stop in
    the worker before its last stores, a forward one after."""
    s.cmd("breakpoint set -f thr_watch_counter.c -l %d" % line_of(source, "COUNTER_READ"))
    reason, main_thread, _ = s.move("continue")
    expect(reason == lldb.eStopReasonBreakpoint, "at main's read of counter")
    main_tid = main_thread.GetThreadID()
    expect(s.value("counter") == n - 1, "counter = %d at the read" % (n - 1))
    s.cmd("watchpoint set variable counter")
    store_line = line_of(source, "COUNTER_STORE")
    for want in (n - 2, n - 3):
        reason, thread, took = s.move("process continue --reverse")
        expect(reason == lldb.eStopReasonWatchpoint, "reverse continue stops at the watchpoint")
        expect(thread.GetThreadID() != main_tid, "in the worker thread (tid %d, main %d)" % (thread.GetThreadID(), main_tid))
        expect(s.line() == store_line, "on the store's line %d" % store_line)
        expect(s.value("counter") == want, "before the store: counter = %d" % want)
    reason, thread, _ = s.move("process continue --forward")
    expect(reason == lldb.eStopReasonWatchpoint and s.value("counter") == n - 2,
           "forward: the next store, counter = %d" % (n - 2))
    threads = [s.process.GetThreadAtIndex(i).GetThreadID() for i in range(s.process.GetNumThreads())]
    expect(main_tid in threads and len(threads) == 2, "thread list: main and the worker (%s)" % threads)


def check_far(s, source):
    """goal_once runs once, then ~10^9 instructions of a loop with no event:
    from exit, one reverse continue finds it checkpoints back."""
    s.cmd("breakpoint set -n exit")
    reason, _, _ = s.move("continue")
    expect(reason == lldb.eStopReasonBreakpoint, "at exit")
    s.cmd("breakpoint set -f goal_cpu.c -l %d" % line_of(source, "GOAL_ONCE"))
    reason, _, took = s.move("process continue --reverse")
    expect(reason == lldb.eStopReasonBreakpoint and s.line() == line_of(source, "GOAL_ONCE"), "reverse continue to goal_once")
    expect(s.value("goal_sink") == 0, "goal_sink = 0 before its store")
    print("far reverse continue: %.2f s" % took)
    reason, _, _ = s.move("process continue --forward")
    expect(reason == lldb.eStopReasonBreakpoint and s.process.GetSelectedThread().GetFrameAtIndex(0).GetFunctionName() == "exit",
           "forward again: exit")


def check_interrupt(s, source, bound_s):
    """`process interrupt` 0.5 s into a reverse continue across a segment of
    seconds stops it within bound_s, at a moment `monitor when` names, and
    the session goes on."""
    s.cmd("breakpoint set -n exit")
    reason, _, _ = s.move("continue")
    expect(reason == lldb.eStopReasonBreakpoint, "at exit")
    s.cmd("breakpoint set -n tl_mark")
    s.dbg.SetAsync(True)
    listener = s.dbg.GetListener()
    event = lldb.SBEvent()
    def stop_within(seconds):
        end = time.time() + seconds
        while time.time() < end:
            if not listener.GetNextEvent(event):
                time.sleep(0.01)
            elif lldb.SBProcess.EventIsProcessEvent(event) and \
                    lldb.SBProcess.GetStateFromEvent(event) == lldb.eStateStopped:
                return True
        return False

    s.cmd("process continue --reverse")
    expect(not stop_within(0.5), "still running 0.5 s in (else the segment is too short)")
    sent = time.time()
    s.cmd("process interrupt")
    stopped = stop_within(60)
    latency = time.time() - sent
    s.dbg.SetAsync(False)
    expect(stopped, "stopped after the interrupt")
    print("interrupt took %d ms" % (latency * 1000))
    expect(latency < bound_s, "within %.1f s" % bound_s)
    when = s.cmd("process plugin packet monitor when")
    expect(re.search(r"Current moment: [0-9]+:[0-9]+:0x[0-9a-f]+:[0-9]+ ", when), "monitor when names the moment")
    reason, _, _ = s.move("process continue --forward")
    expect(reason == lldb.eStopReasonBreakpoint, "the session goes on: forward to a breakpoint")


def main():
    slsdbg, check, rec, program = sys.argv[1:5]
    extra = sys.argv[5:]
    source = os.path.join(os.environ["SLSDBG_SOURCE_DIR"], "tests", "programs", os.path.basename(program) + ".c")
    s = Session(slsdbg, rec, program)
    if check == "steps":
        check_steps(s, source, int(extra[0]))
    elif check == "watch-threads":
        check_watch_threads(s, source, int(extra[0]))
    elif check == "far":
        check_far(s, source)
    elif check == "interrupt":
        check_interrupt(s, source, float(extra[0]))
    else:
        fail("unknown check " + check)
    s.close()
    print("%s: OK" % check)


if __name__ == "__main__":
    main()
