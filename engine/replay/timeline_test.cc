// Checks the Timeline on a real recording (`slsdbg record --interval 2` of
// tests/programs/timeline_counter, which prints its state each iteration):
// forward breakpoints show the values the native run printed, goto_moment
// lands where current_moment() said, reverse continue finds the previous hit,
// reverse step retraces forward single steps, a watchpoint in reverse stops
// before the writing instruction with the old value in memory, the edges of
// history are reported, and bad input gives errors that leave a usable timeline.
#include "engine/replay/timeline.h"

#include <gtest/gtest.h>
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
    g_rec->dir = keep ? fs::path(keep) : fs::temp_directory_path() / ("timeline_test_" + std::to_string(getpid()));
    if (!keep || !fs::exists(g_rec->dir / "rec")) {
      fs::remove_all(g_rec->dir);
      fs::create_directories(g_rec->dir);
      const std::string cmd = b + "/cli/slsdbg record -o " + (g_rec->dir / "rec").string() + " --interval 2 -- " +
                              b + "/tests/programs/timeline_counter " + std::to_string(kIterations) + " 0 > " +
                              (g_rec->dir / "native.out").string() + " 2>" + (g_rec->dir / "rec.err").string();
      ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
    }
    std::ifstream in(g_rec->dir / "native.out");
    std::string line;
    while (std::getline(in, line)) {
      unsigned long long t = 0, m = 0;
      long i = 0, total = 0;
      if (std::sscanf(line.c_str(), "addr tl_total=%llx tl_mark=%llx", &t, &m) == 2) {
        g_rec->total_addr = t;
        g_rec->mark_addr = m;
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
  auto k = Moment::parse("5");
  ASSERT_TRUE(k.ok());
  EXPECT_EQ(k->checkpoint, 5u);
  for (const char* bad : {"", "x", "1:2", "1:2:3", "1:2:0x10:0", "1:2:0xzz:1", "-1:0:0x1:1", "1:2:0x10:1:5",
                          "99999999999999999999:0:0x1:1"}) {
    auto r = Moment::parse(bad);
    EXPECT_FALSE(r.ok()) << "accepted '" << bad << "'";
    if (!r.ok()) EXPECT_NE(r.error().message.find("moment"), std::string::npos) << r.error().message;
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
}

}  // namespace
}  // namespace slsdbg::replay
