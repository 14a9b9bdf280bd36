// Checks how each Timeline stop is told to a debugger: the stop reply kind,
// the watch address and kind, and that the program's exit (status or signal)
// and a divergence become the end of history with a note saying what
// happened (never silent, and the session stays alive).
#include <gtest/gtest.h>

#include "gdbserver/replay/stop_mapping.h"

namespace slsdbg::gdbserver {
namespace {

using replay::StopCause;
using replay::TimelineStop;

constexpr Tid kTid{4242};

TimelineStop stop_of(StopCause cause) {
  TimelineStop s;
  s.cause = cause;
  s.pc = 0x401136;
  return s;
}

TEST(StopMapping, BreakpointIsASoftwareBreakpoint) {
  MappedStop m = map_timeline_stop(stop_of(StopCause::Breakpoint), kTid);
  EXPECT_EQ(m.reason.kind, StopKind::SwBreakpoint);
  EXPECT_EQ(m.reason.thread, kTid);
  EXPECT_EQ(encode_stop_reply(m.reason, ClientFeatures{true, true}), "T05thread:1092;swbreak:;");
  EXPECT_TRUE(m.note.empty());
}

TEST(StopMapping, WatchpointsCarryKindAndAddress) {
  for (auto [kind, expect] : {std::pair{replay::WatchKind::Write, "watch"}, std::pair{replay::WatchKind::Read, "rwatch"},
                              std::pair{replay::WatchKind::Access, "awatch"}}) {
    TimelineStop s = stop_of(StopCause::Watchpoint);
    s.watch_addr = 0x404028;
    s.watch_kind = kind;
    MappedStop m = map_timeline_stop(s, kTid);
    EXPECT_EQ(m.reason.data_addr, RemoteAddr(0x404028));
    EXPECT_EQ(encode_stop_reply(m.reason, {}), std::string("T05thread:1092;") + expect + ":404028;");
  }
}

TEST(StopMapping, HistoryEdgesAreReplaylog) {
  EXPECT_EQ(encode_stop_reply(map_timeline_stop(stop_of(StopCause::HistoryBegin), kTid).reason, {}),
            "T05thread:1092;replaylog:begin;");
  EXPECT_EQ(encode_stop_reply(map_timeline_stop(stop_of(StopCause::HistoryEnd), kTid).reason, {}),
            "T05thread:1092;replaylog:end;");
}

TEST(StopMapping, ExitAndDeathBySignalAreTheEndOfHistoryWithANote) {
  TimelineStop exited = stop_of(StopCause::Exited);
  exited.exit_status = 3;
  MappedStop e = map_timeline_stop(exited, kTid);
  EXPECT_EQ(encode_stop_reply(e.reason, {}), "T05thread:1092;replaylog:end;");
  EXPECT_NE(e.note.find("exited with status 3"), std::string::npos) << e.note;
  TimelineStop killed = stop_of(StopCause::Exited);
  killed.signo = SIGSEGV;
  MappedStop k = map_timeline_stop(killed, kTid);
  EXPECT_EQ(encode_stop_reply(k.reason, {}), "T05thread:1092;replaylog:end;");
  EXPECT_NE(k.note.find("killed by SIGSEGV here"), std::string::npos) << k.note;
}

TEST(StopMapping, SignalsStepsAndInterrupts) {
  TimelineStop sig = stop_of(StopCause::Signal);
  sig.signo = SIGALRM;
  EXPECT_EQ(encode_stop_reply(map_timeline_stop(sig, kTid).reason, {}), "T0ethread:1092;");
  EXPECT_EQ(encode_stop_reply(map_timeline_stop(stop_of(StopCause::Step), kTid).reason, {}), "T05thread:1092;");
  EXPECT_EQ(encode_stop_reply(map_timeline_stop(stop_of(StopCause::Interrupted), kTid).reason, {}),
            "T02thread:1092;");
}

TEST(StopMapping, ExecIsAnExecStopWithoutANote) {
  MappedStop m = map_timeline_stop(stop_of(StopCause::Exec), kTid);
  EXPECT_EQ(m.reason.kind, StopKind::Exec);
  EXPECT_EQ(m.reason.signal, SIGTRAP);
  EXPECT_TRUE(m.note.empty());
}

TEST(StopMapping, DivergenceIsTheEndOfHistoryWithANote) {
  TimelineStop s = stop_of(StopCause::Diverged);
  s.divergence = replay::Divergence{SegmentId(7), 3, "write(1, ...)", "read(0, ...)", 0x401200};
  MappedStop m = map_timeline_stop(s, kTid);
  EXPECT_EQ(m.reason.kind, StopKind::HistoryEnd);
  EXPECT_NE(m.note.find("diverged"), std::string::npos) << m.note;
  EXPECT_NE(m.note.find(s.divergence->describe()), std::string::npos) << m.note;
}

// The end after an exit is shown as the exit call's entry only when that
// call is caught and the program exited (a kill has no call).
TEST(StopMapping, ExitCallEntryAtTheEndWhenCaught) {
  TimelineStop exited = stop_of(StopCause::Exited);
  const StopReason end = map_timeline_stop(exited, kTid).reason;
  user_regs_struct regs{};
  regs.orig_rax = 231;
  auto read = [&]() -> Result<user_regs_struct> { return regs; };
  auto entry = exit_call_entry(end, exited, read, true, {231});
  ASSERT_TRUE(entry.ok());
  ASSERT_TRUE(entry->has_value());
  EXPECT_EQ((*entry)->kind, StopKind::SyscallEntry);
  EXPECT_EQ((*entry)->syscall_no, 231);
  EXPECT_TRUE(exit_call_entry(end, exited, read, true, {})->has_value()) << "catch syscall: every call";
  EXPECT_FALSE(exit_call_entry(end, exited, read, true, {60})->has_value()) << "another call caught";
  EXPECT_FALSE(exit_call_entry(end, exited, read, false, {})->has_value()) << "nothing caught";
  regs.orig_rax = static_cast<uint64_t>(-1);  // the threaded end: the call about to run
  regs.rax = 231;
  EXPECT_TRUE(exit_call_entry(end, exited, read, true, {231})->has_value());
  TimelineStop killed = exited;
  killed.signo = SIGKILL;
  EXPECT_FALSE(exit_call_entry(map_timeline_stop(killed, kTid).reason, killed, read, true, {})->has_value());
  TimelineStop cut = stop_of(StopCause::HistoryEnd);  // no exit recorded
  EXPECT_FALSE(exit_call_entry(map_timeline_stop(cut, kTid).reason, cut, read, true, {})->has_value());
}

}  // namespace
}  // namespace slsdbg::gdbserver
