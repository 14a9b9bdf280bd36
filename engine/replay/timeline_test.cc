// Checks the Timeline on a real recording (`slsdbg record --interval 2` of
// tests/programs/timeline_counter, which prints its state each iteration):
// forward breakpoints show the values the native run printed, goto_moment
// lands where current_moment() said, reverse continue finds the previous hit,
// reverse step retraces forward single steps, a watchpoint in reverse stops
// before the writing instruction with the old value in memory, the edges of
// history are reported, and bad input gives errors that leave a usable timeline.
#include "engine/replay/timeline.h"
#include "process/syscallbuf_stub.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

namespace slsdbg::replay {
namespace {

namespace fs = std::filesystem;

constexpr long kIterations = 30;

struct Recording {
  fs::path dir;
  uint64_t total_addr = 0;
  uint64_t mark_addr = 0;
  uint64_t seed_addr = 0;
  uint64_t start_addr = 0;
  uint64_t seed = 0;
  std::map<long, long> total_at;  // iteration -> tl_total printed after its update
  std::unique_ptr<store::RecordingReader> reader;
};

Recording* g_rec = nullptr;

long expected_total(long i) { return g_rec->total_at.at(i); }

class TimelineTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    g_rec = new Recording;
    const char* build = std::getenv("SLSDBG_BUILD_DIR");
    const std::string b = build ? build : ".";
    // TIMELINE_TEST_KEEP=DIR: record into DIR once and reuse it (debugging).
    const char* keep = std::getenv("TIMELINE_TEST_KEEP");
    // TIMELINE_TEST_RECORD_ARGS: `record` options (timeline_test_sysbuf:
    // --syscall-buffer); without it the unbuffered path (--no-syscall-buffer).
    const char* more = std::getenv("TIMELINE_TEST_RECORD_ARGS");
    g_rec->dir = keep ? fs::path(keep) : fs::temp_directory_path() / ("timeline_test_" + std::to_string(getpid()));
    if (!keep || !fs::exists(g_rec->dir / "rec")) {
      fs::remove_all(g_rec->dir);
      fs::create_directories(g_rec->dir);
      const std::string cmd = b + "/cli/slsdbg record -o " + (g_rec->dir / "rec").string() + " --interval 2 " +
                              (more ? more : "--no-syscall-buffer") + " -- " + b + "/tests/programs/timeline_counter " + std::to_string(kIterations) + " 0 > " +
                              (g_rec->dir / "native.out").string() + " 2>" + (g_rec->dir / "rec.err").string();
      ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
    }
    std::ifstream in(g_rec->dir / "native.out");
    std::string line;
    while (std::getline(in, line)) {
      unsigned long long t = 0, m = 0;
      long i = 0, total = 0;
      unsigned long long st = 0, sa = 0, sv = 0;
      if (std::sscanf(line.c_str(), "addr tl_total=%llx tl_mark=%llx tl_start=%llx tl_seed=%llx seed=%llx", &t, &m,
                      &st, &sa, &sv) == 5) {
        g_rec->total_addr = t;
        g_rec->mark_addr = m;
        g_rec->seed_addr = sa;
        g_rec->start_addr = st;
        g_rec->seed = sv;
      } else if (std::sscanf(line.c_str(), "i=%ld total=%ld", &i, &total) == 2) {
        g_rec->total_at[i] = total;
      }
    }
    ASSERT_NE(g_rec->total_addr, 0u);
    ASSERT_EQ(g_rec->total_at.size(), static_cast<size_t>(kIterations));
    auto reader = store::RecordingReader::open((g_rec->dir / "rec").string());
    ASSERT_TRUE(reader.ok()) << reader.error().message;
    g_rec->reader = std::move(*reader);
    ASSERT_GE(g_rec->reader->checkpoints().size(), 4u) << "want several checkpoints";
  }
  static void TearDownTestSuite() {
    if (g_rec && !std::getenv("TIMELINE_TEST_KEEP")) fs::remove_all(g_rec->dir);
    delete g_rec;
    g_rec = nullptr;
  }

  void SetUp() override {
    ASSERT_NE(g_rec, nullptr);
    ASSERT_NE(g_rec->reader, nullptr);
    auto t = Timeline::open(*g_rec->reader);
    ASSERT_TRUE(t.ok()) << t.error().message;
    tl = std::move(*t);
  }

  long read_total() {
    long v = 0;
    auto n = tl->read_memory(g_rec->total_addr, {reinterpret_cast<uint8_t*>(&v), sizeof v});
    EXPECT_TRUE(n.ok()) << n.error().message;
    return v;
  }
  uint64_t rdi() {
    auto r = tl->regs();
    EXPECT_TRUE(r.ok()) << r.error().message;
    return r.ok() ? r->rdi : ~0ull;
  }
  uint64_t pc() {
    auto r = tl->regs();
    return r.ok() ? r->rip : 0;
  }
  // Forward to the breakpoint hit of iteration i (breakpoint at tl_mark).
  void forward_to_iteration(long i) {
    ASSERT_TRUE(tl->add_breakpoint(g_rec->mark_addr).ok());
    for (long k = 0; k <= i; k++) {
      auto st = tl->resume(Direction::Forward, Motion::Continue);
      ASSERT_TRUE(st.ok()) << st.error().message;
      ASSERT_EQ(st->cause, StopCause::Breakpoint) << "iteration " << k;
    }
    ASSERT_EQ(rdi(), static_cast<uint64_t>(i));
  }

  std::unique_ptr<Timeline> tl;
};

TEST(MomentText, ParsesAndRejects) {
  auto m = Moment::parse("12:3:0x401136:7");
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_EQ(*m, (Moment{12, 3, 0x401136, 7}));
  EXPECT_EQ(m->to_string(), "12:3:0x401136:7");
  auto bare = Moment::parse("12:3:401136:7");  // a pc without 0x is still hex
  ASSERT_TRUE(bare.ok()) << bare.error().message;
  EXPECT_EQ(*bare, (Moment{12, 3, 0x401136, 7}));
  auto k = Moment::parse("5");
  ASSERT_TRUE(k.ok());
  EXPECT_EQ(k->checkpoint, 5u);
  for (const char* bad : {"", "x", "1:2", "1:2:3", "1:2:0x10:0", "1:2:0xzz:1", "-1:0:0x1:1", "1:2:0x10:1:5",
                          "99999999999999999999:0:0x1:1"}) {
    auto r = Moment::parse(bad);
    EXPECT_FALSE(r.ok()) << "accepted '" << bad << "'";
    if (!r.ok()) {
      EXPECT_NE(r.error().message.find("moment"), std::string::npos) << r.error().message;
    }
  }
}

TEST_F(TimelineTest, OpensAtCheckpointZero) {
  auto cp0 = g_rec->reader->process_state(CheckpointId(0));
  ASSERT_TRUE(cp0.ok());
  EXPECT_EQ(pc(), cp0->threads[0].regs.rip);
  auto m = tl->current_moment();
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_EQ(*m, (Moment{0, 0, cp0->threads[0].regs.rip, 1}));
  EXPECT_EQ(tl->thread(), cp0->threads[0].tid);
}

TEST_F(TimelineTest, ForwardBreakpointsShowTheNativeValuesThenExit) {
  ASSERT_TRUE(tl->add_breakpoint(g_rec->mark_addr).ok());
  uint64_t last_segment = 0;
  for (long i = 0; i < kIterations; i++) {
    auto st = tl->resume(Direction::Forward, Motion::Continue);
    ASSERT_TRUE(st.ok()) << st.error().message;
    ASSERT_EQ(st->cause, StopCause::Breakpoint) << "iteration " << i;
    EXPECT_EQ(st->pc, g_rec->mark_addr);
    EXPECT_EQ(pc(), g_rec->mark_addr);
    EXPECT_EQ(rdi(), static_cast<uint64_t>(i));
    EXPECT_EQ(read_total(), expected_total(i));
    uint8_t code = 0;
    ASSERT_TRUE(tl->read_memory(g_rec->mark_addr, {&code, 1}).ok());
    EXPECT_NE(code, 0xcc) << "breakpoint bytes must read as the original";
    EXPECT_GE(tl->current_segment().value, last_segment);
    last_segment = tl->current_segment().value;
  }
  EXPECT_GT(last_segment, 0u) << "the hits should spread over several segments";
  auto st = tl->resume(Direction::Forward, Motion::Continue);
  ASSERT_TRUE(st.ok()) << st.error().message;
  EXPECT_EQ(st->cause, StopCause::Exited);
  EXPECT_EQ(st->exit_status, 0);
  auto again = tl->resume(Direction::Forward, Motion::Continue);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->cause, StopCause::Exited);
  EXPECT_TRUE(tl->regs().ok()) << "the timeline stays at a live moment";
}

TEST_F(TimelineTest, BreakpointOnCodeNotYetMappedIsHitOnceLoaded) {
  // At checkpoint 0 the dynamic loader has not mapped libc yet; write() is
  // in libc. Its address: from the first logged write syscall's pc, in the
  // recorded image of a later checkpoint.
  uint64_t write_pc = 0;
  for (uint64_t k = 0; k < tl->checkpoint_count() && !write_pc; k++) {
    auto events = g_rec->reader->segment_events(SegmentId(k));
    ASSERT_TRUE(events.ok());
    for (const store::Event& ev : *events)
      if (ev.kind == store::EventKind::Syscall && ev.syscall_no == 1) {
        write_pc = ev.pc - 2;
        break;
      }
  }
  ASSERT_NE(write_pc, 0u);
  uint8_t byte = 0;
  auto unmapped = tl->read_memory(write_pc, {&byte, 1});
  if (unmapped.ok()) GTEST_SKIP() << "libc is already mapped at checkpoint 0";
  ASSERT_TRUE(tl->add_breakpoint(write_pc).ok());
  auto st = tl->resume(Direction::Forward, Motion::Continue);
  ASSERT_TRUE(st.ok()) << st.error().message;
  EXPECT_EQ(st->cause, StopCause::Breakpoint);
  EXPECT_EQ(pc(), write_pc);
  EXPECT_EQ(tl->regs()->rax, 1u) << "about to run write(2)";
  ASSERT_TRUE(tl->read_memory(write_pc, {&byte, 1}).ok());
  EXPECT_EQ(byte, 0x0f) << "the syscall instruction reads as itself";
}

TEST_F(TimelineTest, GotoMomentReturnsToTheSameState) {
  forward_to_iteration(17);
  auto m = tl->current_moment();
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_EQ(m->pc, g_rec->mark_addr);
  auto regs_there = tl->regs();
  ASSERT_TRUE(regs_there.ok());
  ASSERT_TRUE(tl->goto_checkpoint(CheckpointId(0)).ok());
  EXPECT_NE(rdi(), 17u);
  auto st = tl->goto_moment(*m);
  ASSERT_TRUE(st.ok()) << st.error().message;
  EXPECT_EQ(pc(), g_rec->mark_addr);
  EXPECT_EQ(rdi(), 17u);
  EXPECT_EQ(read_total(), expected_total(17));
  EXPECT_EQ(tl->regs()->rsp, regs_there->rsp);
  auto again = tl->current_moment();
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, *m);
  // Going on from there behaves as from the original: the next hit is 18.
  auto next = tl->resume(Direction::Forward, Motion::Continue);
  ASSERT_TRUE(next.ok()) << next.error().message;
  EXPECT_EQ(next->cause, StopCause::Breakpoint);
  EXPECT_EQ(rdi(), 18u);
}

TEST_F(TimelineTest, GotoCheckpointAndBadMoments) {
  const uint64_t last = tl->checkpoint_count() - 1;
  auto st = tl->goto_checkpoint(CheckpointId(last));
  ASSERT_TRUE(st.ok()) << st.error().message;
  auto cp = g_rec->reader->process_state(CheckpointId(last));
  EXPECT_EQ(pc(), cp->threads[0].regs.rip);
  EXPECT_FALSE(tl->goto_checkpoint(CheckpointId(last + 1)).ok());
  auto bad = tl->goto_moment(Moment{1, 0, g_rec->mark_addr, 1000000});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("not in history"), std::string::npos) << bad.error().message;
  EXPECT_TRUE(tl->regs().ok()) << "a failed goto leaves a live moment";
  EXPECT_FALSE(tl->goto_moment(Moment{last + 5, 0, 0x1000, 1}).ok());
  EXPECT_FALSE(tl->goto_moment(Moment{0, 100000, 0x1000, 1}).ok());
  EXPECT_TRUE(tl->regs().ok());
}

TEST_F(TimelineTest, ReverseContinueFindsThePreviousHits) {
  forward_to_iteration(12);
  for (long i = 11; i >= 9; i--) {
    auto st = tl->resume(Direction::Backward, Motion::Continue);
    ASSERT_TRUE(st.ok()) << st.error().message;
    ASSERT_EQ(st->cause, StopCause::Breakpoint);
    EXPECT_EQ(pc(), g_rec->mark_addr);
    EXPECT_EQ(rdi(), static_cast<uint64_t>(i));
    EXPECT_EQ(read_total(), expected_total(i));
  }
  // Forward again from a reverse stop: the next hit.
  auto fw = tl->resume(Direction::Forward, Motion::Continue);
  ASSERT_TRUE(fw.ok()) << fw.error().message;
  EXPECT_EQ(rdi(), 10u);
  // Re-reaching the hits forked snapshots (scans only use existing ones).
  const Timeline::Stats s = tl->stats();
  EXPECT_GE(s.snapshot_forks, 3u) << "restores " << s.restores << ", forks " << s.snapshot_forks;
  EXPECT_LE(s.snapshots, TimelineOptions{}.max_snapshots);
}

TEST_F(TimelineTest, WithoutSnapshotsTheSameStops) {
  TimelineOptions o;
  o.max_snapshots = 0;
  auto t = Timeline::open(*g_rec->reader, o);
  ASSERT_TRUE(t.ok()) << t.error().message;
  tl = std::move(*t);
  forward_to_iteration(6);
  auto st = tl->resume(Direction::Backward, Motion::Continue);
  ASSERT_TRUE(st.ok()) << st.error().message;
  EXPECT_EQ(rdi(), 5u);
  EXPECT_EQ(read_total(), expected_total(5));
  EXPECT_EQ(tl->stats().snapshot_forks, 0u);
  EXPECT_GT(tl->stats().restores, 1u);
}

TEST_F(TimelineTest, ReverseContinueAcrossTheWholeRecording) {
  // tl_start runs once, at the start: from the last checkpoint, every
  // segment is re-run backwards to find it.
  ASSERT_TRUE(tl->add_breakpoint(g_rec->start_addr).ok());
  ASSERT_TRUE(tl->goto_checkpoint(CheckpointId(tl->checkpoint_count() - 1)).ok());
  auto st = tl->resume(Direction::Backward, Motion::Continue);
  ASSERT_TRUE(st.ok()) << st.error().message;
  EXPECT_EQ(st->cause, StopCause::Breakpoint);
  EXPECT_EQ(pc(), g_rec->start_addr);
  EXPECT_EQ(read_total(), 0);
}

TEST_F(TimelineTest, ReverseContinueBeforeTheFirstHitIsHistoryBegin) {
  forward_to_iteration(0);
  auto st = tl->resume(Direction::Backward, Motion::Continue);
  ASSERT_TRUE(st.ok()) << st.error().message;
  EXPECT_EQ(st->cause, StopCause::HistoryBegin);
  EXPECT_EQ(tl->current_segment().value, 0u);
  auto cp0 = g_rec->reader->process_state(CheckpointId(0));
  EXPECT_EQ(pc(), cp0->threads[0].regs.rip);
  auto rs = tl->resume(Direction::Backward, Motion::Step);
  ASSERT_TRUE(rs.ok()) << rs.error().message;
  EXPECT_EQ(rs->cause, StopCause::HistoryBegin);
}

TEST_F(TimelineTest, ReverseStepRetracesForwardSteps) {
  forward_to_iteration(5);
  std::vector<uint64_t> pcs{pc()};
  std::vector<uint64_t> rsps{tl->regs()->rsp};
  constexpr int kSteps = 12;
  for (int s = 0; s < kSteps; s++) {
    auto st = tl->resume(Direction::Forward, Motion::Step);
    ASSERT_TRUE(st.ok()) << st.error().message;
    ASSERT_EQ(st->cause, StopCause::Step);
    pcs.push_back(pc());
    rsps.push_back(tl->regs()->rsp);
  }
  for (int s = kSteps - 1; s >= 0; s--) {
    auto st = tl->resume(Direction::Backward, Motion::Step);
    ASSERT_TRUE(st.ok()) << st.error().message;
    ASSERT_EQ(st->cause, StopCause::Step);
    EXPECT_EQ(pc(), pcs[s]) << "reverse step " << (kSteps - s);
    EXPECT_EQ(tl->regs()->rsp, rsps[s]);
  }
  EXPECT_EQ(rdi(), 5u);
  // One more: the instruction before tl_mark's entry is the call in main.
  auto st = tl->resume(Direction::Backward, Motion::Step);
  ASSERT_TRUE(st.ok()) << st.error().message;
  uint8_t op = 0;
  ASSERT_TRUE(tl->read_memory(pc(), {&op, 1}).ok());
  EXPECT_EQ(op, 0xe8) << "expected the call to tl_mark";
  auto m = tl->current_moment();
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_EQ(m->pc, pc());
}

// Registers equal except the flags the way of reaching a point may leave.
void expect_same_regs(const user_regs_struct& a, const user_regs_struct& b) {
  EXPECT_EQ(a.rip, b.rip);
  EXPECT_EQ(a.rsp, b.rsp);
  EXPECT_EQ(a.rax, b.rax);
  EXPECT_EQ(a.rdi, b.rdi);
  EXPECT_EQ(a.rsi, b.rsi);
  EXPECT_EQ(a.rdx, b.rdx);
  EXPECT_EQ(a.rbx, b.rbx);
  EXPECT_EQ(a.rbp, b.rbp);
  EXPECT_EQ(a.r12, b.r12);
}

TEST_F(TimelineTest, ReverseStepAcrossASyscallLandsOnTheSyscallInstruction) {
  // The first instruction after a syscall event in a middle segment (not
  // one right before the next checkpoint: that point is named in the next
  // segment).
  uint64_t k = tl->checkpoint_count() / 2;
  size_t e = 0;
  uint64_t after = 0;
  for (; k + 1 < tl->checkpoint_count() && !after; k++) {
    auto events = g_rec->reader->segment_events(SegmentId(k));
    ASSERT_TRUE(events.ok());
    auto next = g_rec->reader->process_state(CheckpointId(k + 1));
    ASSERT_TRUE(next.ok());
    for (e = 0; e < events->size(); e++)
      if ((*events)[e].kind == store::EventKind::Syscall &&
          (e + 1 < events->size() || next->threads[0].regs.rip != (*events)[e].pc)) {
        after = (*events)[e].pc;
        break;
      }
    if (after) break;
  }
  ASSERT_NE(after, 0u) << "no syscall event found";
  auto st = tl->goto_moment(Moment{k, e + 1, after, 1});
  ASSERT_TRUE(st.ok()) << st.error().message;
  auto there = tl->regs();
  ASSERT_TRUE(there.ok());
  auto back = tl->resume(Direction::Backward, Motion::Step);
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->cause, StopCause::Step);
  EXPECT_EQ(pc(), after - 2);
  uint8_t insn[2] = {0, 0};
  ASSERT_TRUE(tl->read_memory(pc(), {insn, 2}).ok());
  EXPECT_TRUE(insn[0] == 0x0f && insn[1] == 0x05) << "not a syscall instruction";
  auto m = tl->current_moment();
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_EQ(m->checkpoint, k);
  EXPECT_EQ(m->event, e);
  // Stepping forward executes the syscall (replayed from the log) again.
  auto fw = tl->resume(Direction::Forward, Motion::Step);
  ASSERT_TRUE(fw.ok()) << fw.error().message;
  expect_same_regs(*tl->regs(), *there);
  auto m2 = tl->current_moment();
  ASSERT_TRUE(m2.ok()) << m2.error().message;
  EXPECT_EQ(*m2, (Moment{k, e + 1, after, 1}));
}

TEST_F(TimelineTest, ReverseStepAtACheckpointGoesIntoThePreviousSegment) {
  const uint64_t k = tl->checkpoint_count() / 2;
  ASSERT_TRUE(tl->goto_checkpoint(CheckpointId(k)).ok());
  auto at_k = tl->regs();
  ASSERT_TRUE(at_k.ok());
  auto back = tl->resume(Direction::Backward, Motion::Step);
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->cause, StopCause::Step);
  EXPECT_EQ(tl->current_segment().value, k - 1);
  auto fw = tl->resume(Direction::Forward, Motion::Step);
  ASSERT_TRUE(fw.ok()) << fw.error().message;
  expect_same_regs(*tl->regs(), *at_k);
  auto m = tl->current_moment();
  ASSERT_TRUE(m.ok()) << m.error().message;
  // The same point, named in either segment (the boundary is crossed lazily).
  EXPECT_EQ(m->pc, at_k->rip);
}

TEST_F(TimelineTest, InterruptStopsAtAnEventAndKeepsAMoment) {
  int polls = 0;
  TimelineOptions o;
  o.interrupted = [&polls] { return ++polls > 20; };
  auto t = Timeline::open(*g_rec->reader, o);
  ASSERT_TRUE(t.ok()) << t.error().message;
  tl = std::move(*t);
  auto st = tl->resume(Direction::Forward, Motion::Continue);
  ASSERT_TRUE(st.ok()) << st.error().message;
  EXPECT_EQ(st->cause, StopCause::Interrupted);
  const uint64_t here = pc();
  auto m = tl->current_moment();
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_EQ(m->pc, here);
  EXPECT_EQ(pc(), here);
}

// Interrupted at every event: with the syscall buffer (timeline_test_sysbuf)
// the place right after a buffered write is inside the stub page, where a
// debugger has no symbol; the user is stepped on to the program's code.
TEST_F(TimelineTest, InterruptNeverLeavesTheUserInsideTheSyscallBufferStub) {
  TimelineOptions o;
  o.interrupted = [] { return true; };
  auto t = Timeline::open(*g_rec->reader, o);
  ASSERT_TRUE(t.ok()) << t.error().message;
  tl = std::move(*t);
  const process::SysbufStubLayout stub = process::sysbuf_stub_layout();
  int stops = 0;
  for (int i = 0; i < 200; i++) {
    auto st = tl->resume(Direction::Forward, Motion::Continue);
    ASSERT_TRUE(st.ok()) << st.error().message;
    if (st->cause != StopCause::Interrupted) break;
    stops++;
    const uint64_t here = pc();
    EXPECT_FALSE(here >= stub.code_begin && here < stub.code_end) << "stop " << stops << " at 0x" << std::hex << here;
    EXPECT_EQ(st->pc, here);
    auto m = tl->current_moment();
    ASSERT_TRUE(m.ok()) << m.error().message;
    EXPECT_EQ(m->pc, here);
  }
  EXPECT_GT(stops, 5);
}

TEST_F(TimelineTest, WatchpointSeesASyscallsWrite) {
  ASSERT_NE(g_rec->seed_addr, 0u);
  ASSERT_TRUE(tl->add_watchpoint(WatchKind::Write, g_rec->seed_addr, 8).ok());
  auto st = tl->resume(Direction::Forward, Motion::Continue);
  ASSERT_TRUE(st.ok()) << st.error().message;
  ASSERT_EQ(st->cause, StopCause::Watchpoint);
  EXPECT_EQ(st->watch_addr, g_rec->seed_addr);
  uint64_t v = 0;
  ASSERT_TRUE(tl->read_memory(g_rec->seed_addr, {reinterpret_cast<uint8_t*>(&v), 8}).ok());
  EXPECT_EQ(v, g_rec->seed) << "right after read(2) filled it";
  // Later, backwards: the stop is at the syscall instruction, before the write.
  ASSERT_TRUE(tl->add_breakpoint(g_rec->mark_addr).ok());
  ASSERT_TRUE(tl->resume(Direction::Forward, Motion::Continue).ok());
  ASSERT_TRUE(tl->resume(Direction::Forward, Motion::Continue).ok());
  ASSERT_TRUE(tl->remove_breakpoint(g_rec->mark_addr).ok());
  auto back = tl->resume(Direction::Backward, Motion::Continue);
  ASSERT_TRUE(back.ok()) << back.error().message;
  ASSERT_EQ(back->cause, StopCause::Watchpoint);
  ASSERT_TRUE(tl->read_memory(g_rec->seed_addr, {reinterpret_cast<uint8_t*>(&v), 8}).ok());
  EXPECT_EQ(v, 0u) << "before the read";
  uint8_t insn[2] = {0, 0};
  ASSERT_TRUE(tl->read_memory(pc(), {insn, 2}).ok());
  EXPECT_TRUE(insn[0] == 0x0f && insn[1] == 0x05) << "at the read's syscall instruction";
}

TEST_F(TimelineTest, WatchpointReverseStopsBeforeTheWrite) {
  forward_to_iteration(8);
  ASSERT_TRUE(tl->remove_breakpoint(g_rec->mark_addr).ok());
  ASSERT_TRUE(tl->add_watchpoint(WatchKind::Write, g_rec->total_addr, 8).ok());
  auto st = tl->resume(Direction::Backward, Motion::Continue);
  ASSERT_TRUE(st.ok()) << st.error().message;
  ASSERT_EQ(st->cause, StopCause::Watchpoint);
  EXPECT_EQ(st->watch_addr, g_rec->total_addr);
  EXPECT_EQ(read_total(), expected_total(7)) << "before iteration 8's write";
  // Executing the instruction we stopped at performs the write.
  auto step = tl->resume(Direction::Forward, Motion::Step);
  ASSERT_TRUE(step.ok()) << step.error().message;
  EXPECT_EQ(step->cause, StopCause::Watchpoint);
  EXPECT_EQ(read_total(), expected_total(8));
  // Forward: the next write is iteration 9's, reported after it.
  auto fw = tl->resume(Direction::Forward, Motion::Continue);
  ASSERT_TRUE(fw.ok()) << fw.error().message;
  ASSERT_EQ(fw->cause, StopCause::Watchpoint);
  EXPECT_EQ(read_total(), expected_total(9));
  // Bad watchpoints.
  EXPECT_FALSE(tl->add_watchpoint(WatchKind::Write, g_rec->total_addr + 1, 8).ok());
  EXPECT_FALSE(tl->add_watchpoint(WatchKind::Write, g_rec->total_addr, 3).ok());
  EXPECT_TRUE(tl->add_watchpoint(WatchKind::Access, g_rec->total_addr, 4).ok());
  EXPECT_FALSE(tl->add_watchpoint(WatchKind::Read, g_rec->total_addr + 8, 8).ok()) << "a third watchpoint";
  // Two watchpoints still leave room for navigation's probes.
  auto two = tl->resume(Direction::Backward, Motion::Continue);
  ASSERT_TRUE(two.ok()) << two.error().message;
  EXPECT_EQ(two->cause, StopCause::Watchpoint);
  auto m = tl->current_moment();
  EXPECT_TRUE(m.ok()) << m.error().message;
}

// last_write: the latest write before now, inspected at its moment (before
// the instruction), then the timeline is back where it was; a syscall's
// write (read(2) into tl_seed) is found at its `syscall` instruction.
TEST_F(TimelineTest, LastWriteFindsTheWriterAndComesBack) {
  forward_to_iteration(8);
  auto before = tl->current_moment();
  ASSERT_TRUE(before.ok()) << before.error().message;
  long seen = -1;
  auto w = tl->last_write(g_rec->total_addr, 8, [&](const Timeline::LastWrite&) -> Status {
    seen = read_total();
    return ok_status();
  });
  ASSERT_TRUE(w.ok()) << w.error().message;
  ASSERT_TRUE(w->has_value()) << "iteration 8's write";
  EXPECT_EQ(seen, expected_total(7)) << "inspected before iteration 8's write";
  EXPECT_LE((*w)->moment.checkpoint, before->checkpoint);
  auto after = tl->current_moment();
  ASSERT_TRUE(after.ok()) << after.error().message;
  EXPECT_EQ(*after, *before) << "back where the query started";
  EXPECT_EQ(read_total(), expected_total(8));
  auto seed = tl->last_write(g_rec->seed_addr, 8);
  ASSERT_TRUE(seed.ok()) << seed.error().message;
  ASSERT_TRUE(seed->has_value()) << "read(2) wrote tl_seed";
  auto cut = tl->goto_moment((*seed)->moment);
  ASSERT_TRUE(cut.ok()) << cut.error().message;
  uint8_t code[2] = {};
  ASSERT_TRUE(tl->read_memory((*seed)->pc, code).ok());
  EXPECT_EQ(code[0], 0x0f);
  EXPECT_EQ(code[1], 0x05) << "a syscall's write is found at its syscall instruction";
  EXPECT_FALSE(tl->last_write(g_rec->total_addr, 0).ok()) << "an empty range";
  EXPECT_FALSE(tl->last_write(g_rec->total_addr + 1, 64).ok()) << "more than 2 debug registers";
}

// A recording of tests/programs/timeline_fault (a SIGSEGV in tl_fault),
// handled (exit 3) or not (death by SIGSEGV).
struct FaultRecording {
  fs::path dir;
  uint64_t fault_fn = 0;
  std::unique_ptr<store::RecordingReader> reader;
};

FaultRecording record_fault(bool handled) {
  FaultRecording r;
  const char* build = std::getenv("SLSDBG_BUILD_DIR");
  const std::string b = build ? build : ".";
  r.dir = fs::temp_directory_path() / ("timeline_fault_" + std::to_string(getpid()) + (handled ? "_h" : "_u"));
  // TIMELINE_FAULT_REUSE=DIR: use DIR's recording (debugging one that failed).
  if (const char* reuse = std::getenv("TIMELINE_FAULT_REUSE")) {
    r.dir = reuse;
  } else {
    fs::remove_all(r.dir);
    fs::create_directories(r.dir);
  }
  const std::string cmd = b + "/cli/slsdbg record -o " + (r.dir / "rec").string() + " --interval 2 -- " + b +
                          "/tests/programs/timeline_fault" + (handled ? " handle" : "") + " > " +
                          (r.dir / "native.out").string() + " 2>/dev/null";
  if (!std::getenv("TIMELINE_FAULT_REUSE")) (void)std::system(cmd.c_str());  // exits 3 or dies by SIGSEGV
  std::ifstream in(r.dir / "native.out");
  std::string line;
  unsigned long long f = 0;
  while (std::getline(in, line))
    if (std::sscanf(line.c_str(), "tl_fault=%llx", &f) == 1) r.fault_fn = f;
  auto reader = store::RecordingReader::open((r.dir / "rec").string());
  if (reader.ok()) r.reader = std::move(*reader);
  return r;
}

TEST(TimelineSignals, RecordedSignalStopsThenTheHandlerRunsAndExits) {
  FaultRecording rec = record_fault(true);
  ASSERT_NE(rec.reader, nullptr);
  ASSERT_NE(rec.fault_fn, 0u);
  auto t = Timeline::open(*rec.reader);
  ASSERT_TRUE(t.ok()) << t.error().message;
  auto& tl = *t;
  auto st = tl->resume(Direction::Forward, Motion::Continue);
  ASSERT_TRUE(st.ok()) << st.error().message;
  ASSERT_EQ(st->cause, StopCause::Signal);
  EXPECT_EQ(st->signo, SIGSEGV);
  EXPECT_GE(st->pc, rec.fault_fn);
  EXPECT_LT(st->pc, rec.fault_fn + 64) << "the faulting store is in tl_fault";
  auto done = tl->resume(Direction::Forward, Motion::Continue);
  ASSERT_TRUE(done.ok()) << done.error().message;
  EXPECT_EQ(done->cause, StopCause::Exited);
  EXPECT_EQ(done->exit_status, 3);
  // At the exit: the exit syscall is the next instruction; one reverse step,
  // then forward again to the exit.
  const uint64_t exit_pc = tl->regs()->rip;
  uint8_t insn[2] = {0, 0};
  ASSERT_TRUE(tl->read_memory(exit_pc, {insn, 2}).ok());
  EXPECT_TRUE(insn[0] == 0x0f && insn[1] == 0x05) << "not at the exit syscall";
  auto rs = tl->resume(Direction::Backward, Motion::Step);
  ASSERT_TRUE(rs.ok()) << rs.error().message;
  EXPECT_EQ(rs->cause, StopCause::Step);
  EXPECT_NE(tl->regs()->rip, exit_pc);
  auto fs1 = tl->resume(Direction::Forward, Motion::Step);
  ASSERT_TRUE(fs1.ok()) << fs1.error().message;
  EXPECT_EQ(tl->regs()->rip, exit_pc);
  auto fs2 = tl->resume(Direction::Forward, Motion::Step);
  ASSERT_TRUE(fs2.ok()) << fs2.error().message;
  EXPECT_EQ(fs2->cause, StopCause::Exited) << (fs2->divergence ? fs2->divergence->describe() : "");
  EXPECT_EQ(fs2->exit_status, 3);
  // Back from the exit to tl_fault's entry.
  ASSERT_TRUE(tl->add_breakpoint(rec.fault_fn).ok());
  auto back = tl->resume(Direction::Backward, Motion::Continue);
  ASSERT_TRUE(back.ok()) << back.error().message << " (recording " << rec.dir << ")";
  EXPECT_EQ(back->cause, StopCause::Breakpoint);
  EXPECT_EQ(tl->regs()->rip, rec.fault_fn);
  EXPECT_EQ(tl->regs()->rdi, 16u) << "tl_fault's argument, the bad pointer";
  fs::remove_all(rec.dir);
}

TEST(TimelineSignals, DeathBySignalEndsHistoryAtTheSignal) {
  FaultRecording rec = record_fault(false);
  ASSERT_NE(rec.reader, nullptr);
  auto t = Timeline::open(*rec.reader);
  ASSERT_TRUE(t.ok()) << t.error().message;
  auto& tl = *t;
  auto st = tl->resume(Direction::Forward, Motion::Continue);
  ASSERT_TRUE(st.ok()) << st.error().message;
  ASSERT_EQ(st->cause, StopCause::Signal);
  const uint64_t fault_pc = st->pc;
  auto dead = tl->resume(Direction::Forward, Motion::Continue);
  ASSERT_TRUE(dead.ok()) << dead.error().message;
  EXPECT_EQ(dead->cause, StopCause::Exited);
  EXPECT_EQ(dead->signo, SIGSEGV);
  ASSERT_TRUE(tl->regs().ok()) << "the timeline stays at a live moment";
  EXPECT_EQ(tl->regs()->rip, fault_pc);
  auto again = tl->resume(Direction::Forward, Motion::Step);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->cause, StopCause::Exited);
  ASSERT_TRUE(tl->add_breakpoint(rec.fault_fn).ok());
  auto back = tl->resume(Direction::Backward, Motion::Continue);
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->cause, StopCause::Breakpoint);
  EXPECT_EQ(tl->regs()->rip, rec.fault_fn);
  fs::remove_all(rec.dir);
}

TEST(TimelineEdges, ARecordingCutShortEndsInHistoryEnd) {
  const char* build = std::getenv("SLSDBG_BUILD_DIR");
  const std::string b = build ? build : ".";
  const fs::path dir = fs::temp_directory_path() / ("timeline_cut_" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  // The recorder is SIGKILLed mid-run (once it has 4 checkpoints): complete
  // checkpoints stay, the rest of the log is cut.
  const std::string cmd = "(" + b + "/cli/slsdbg record -o " + (dir / "rec").string() + " --interval 2 -- " + b +
                          "/tests/programs/timeline_counter 100000 0 >/dev/null 2>&1 & pid=$!; "
                          "for i in $(seq 1200); do sleep 0.1; n=$(" + b + "/cli/slsdbg info " + (dir / "rec").string() +
                          " --json 2>/dev/null | python3 -c 'import json,sys; print(len(json.load(sys.stdin)[\"checkpoints\"]))' "
                          "2>/dev/null); [ \"${n:-0}\" -ge 4 ] && break; done; kill -9 $pid; wait $pid) 2>/dev/null";
  (void)std::system(cmd.c_str());
  auto reader = store::RecordingReader::open((dir / "rec").string());
  ASSERT_TRUE(reader.ok()) << reader.error().message;
  ASSERT_GE((*reader)->checkpoints().size(), 2u);
  auto t = Timeline::open(**reader);
  ASSERT_TRUE(t.ok()) << t.error().message;
  auto& tl = *t;
  auto st = tl->resume(Direction::Forward, Motion::Continue);
  ASSERT_TRUE(st.ok()) << st.error().message;
  EXPECT_EQ(st->cause, StopCause::HistoryEnd);
  EXPECT_TRUE(tl->regs().ok());
  auto again = tl->resume(Direction::Forward, Motion::Step);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->cause, StopCause::HistoryEnd);
  EXPECT_EQ(tl->current_segment().value, (*reader)->checkpoints().size() - 1);
  // Backwards from the end, over the whole last segment.
  auto back = tl->resume(Direction::Backward, Motion::Continue);
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->cause, StopCause::HistoryBegin) << "no breakpoints: back to the start";
  fs::remove_all(dir);
}

}  // namespace
}  // namespace slsdbg::replay
