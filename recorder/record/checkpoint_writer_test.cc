// CheckpointWriter against the real store: checkpoints and events queued in
// order end up in the right checkpoints and segments; page memory owned by
// keepalives is released once stored; a store error surfaces from a later
// call and stops all storing; backpressure blocks add_in_background until an
// earlier checkpoint is stored.
//
// A slow store is made real by holding the recording's retention lock, which
// the store takes at the start of every checkpoint.
#include "recorder/record/checkpoint_writer.h"

#include <atomic>
#include <chrono>
#include <thread>

#include "store/fs_util.h"
#include "store/recording_files.h"
#include "store/tests/test_util.h"

namespace slsdbg::recorder {
namespace {

using store::testing::Model;
using store::testing::TempDir;

cpu_set_t all_cpus() {
  cpu_set_t cpus;
  CPU_ZERO(&cpus);
  (void)sched_getaffinity(0, sizeof cpus, &cpus);
  return cpus;
}

std::unique_ptr<CheckpointWriter> start_writer(const TempDir& tmp, CheckpointWriter::Limits limits = {}) {
  auto w = store::RecordingWriter::create(tmp.rec(), store::testing::test_meta());
  EXPECT_TRUE(w.ok()) << w.error().message;
  if (!w.ok()) return nullptr;
  auto cw = CheckpointWriter::start(std::move(*w), all_cpus(), limits);
  EXPECT_TRUE(cw.ok()) << cw.error().message;
  return cw.ok() ? std::move(*cw) : nullptr;
}

// Holds the store back: no checkpoint is stored until release().
class StoreStall {
 public:
  explicit StoreStall(const TempDir& tmp) {
    auto fd = store::lock_file(tmp.rec() + "/" + store::kRetentionLockFile, store::LockWait::NoWait);
    EXPECT_TRUE(fd.ok()) << fd.error().message;
    if (fd.ok()) fd_ = std::move(*fd);
  }
  void release() { fd_ = UniqueFd(); }

 private:
  UniqueFd fd_;
};

store::Event event(uint64_t segment, uint64_t i) {
  store::Event e;
  e.kind = store::EventKind::Syscall;
  e.tid = Tid(100);
  e.pc = segment * 100000 + i;  // identifies the event
  e.syscall_no = 1;
  e.result = int64_t(i);
  e.writes.push_back(store::MemoryWrite{0x7000 + i, std::vector<uint8_t>(i % 17, uint8_t(i))});
  return e;
}

// The model's next checkpoint, its pages in memory only the keepalive owns.
struct Owned {
  store::CheckpointInput input;
  std::shared_ptr<std::vector<uint8_t>> pages = std::make_shared<std::vector<uint8_t>>();
};
Owned next_checkpoint(Model& model, uint64_t k, uint32_t max_dirty = 40) {
  Owned o;
  o.input = model.next(k, *o.pages, max_dirty);
  return o;
}

std::unique_ptr<store::RecordingReader> open_reader(const TempDir& tmp) {
  auto r = store::RecordingReader::open(tmp.rec());
  EXPECT_TRUE(r.ok()) << r.error().message;
  return r.ok() ? std::move(*r) : nullptr;
}

TEST(CheckpointWriter, QueuedCheckpointsAndEventsLandInOrder) {
  TempDir tmp;
  Model model(7);
  const uint64_t kCheckpoints = 8;
  auto events_in = [](uint64_t k) { return (k % 3) * 40 + 1; };
  std::vector<std::weak_ptr<std::vector<uint8_t>>> pages;
  {
    auto w = start_writer(tmp);
    ASSERT_TRUE(w);
    auto stall = std::make_unique<StoreStall>(tmp);  // first half: everything queues behind checkpoint 0
    for (uint64_t k = 0; k < kCheckpoints; k++) {
      if (k == kCheckpoints / 2) {
        stall->release();
        // Second half: idle in between too, so events are also written directly.
        ASSERT_TRUE(w->wait().ok());
      }
      Owned o = next_checkpoint(model, k);
      pages.push_back(o.pages);
      ASSERT_TRUE(w->add_in_background(std::move(o.input), k == 0 ? "start" : "tick", std::move(o.pages)).ok());
      for (uint64_t i = 0; i < events_in(k); i++) ASSERT_TRUE(w->append_event(event(k, i)).ok());
    }
    EXPECT_GE(w->stats().peak_queued, kCheckpoints / 2);
    ASSERT_TRUE(w->finish().ok());
    for (size_t k = 0; k < pages.size(); k++) EXPECT_TRUE(pages[k].expired()) << "checkpoint " << k << "'s pages still held";
    EXPECT_EQ(w->stats().stored, kCheckpoints);
    EXPECT_EQ(w->stats().blocked, 0u);
  }
  auto r = open_reader(tmp);
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->open_report().finished);
  ASSERT_EQ(r->checkpoints().size(), kCheckpoints);
  for (uint64_t k = 0; k < kCheckpoints; k++) {
    EXPECT_EQ(store::testing::compare_checkpoint(*r, model, k), "");
    EXPECT_EQ(r->checkpoints()[k].reason, k == 0 ? "start" : "tick");
    auto evs = r->segment_events(SegmentId(k));
    ASSERT_TRUE(evs.ok()) << evs.error().message;
    ASSERT_EQ(evs->size(), events_in(k)) << "segment " << k;
    for (uint64_t i = 0; i < evs->size(); i++) {
      EXPECT_EQ((*evs)[i].pc, event(k, i).pc) << "segment " << k << " event " << i;
      EXPECT_EQ((*evs)[i].writes.at(0).bytes, event(k, i).writes[0].bytes);
    }
  }
}

// With CAP_SYS_NICE the thread runs SCHED_IDLE while it keeps up, and the
// caller lifts it back to SCHED_OTHER once 3 checkpoints are queued: under
// load an idle-class writer got no CPU for seconds, filled its queue and held
// the tracee (a starved thread cannot lift itself).
TEST(CheckpointWriter, LeavesTheIdleClassWhenBehindAndReturnsOnceCaughtUp) {
  TempDir tmp;
  Model model(5);
  auto w = start_writer(tmp);
  ASSERT_TRUE(w);
  auto until_policy = [&](int want) {
    for (int i = 0; i < 200 && w->thread_policy() != want; i++) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    return w->thread_policy();
  };
  StoreStall stall(tmp);
  Owned first = next_checkpoint(model, 0);
  ASSERT_TRUE(w->add_in_background(std::move(first.input), "start", std::move(first.pages)).ok());
  if (until_policy(SCHED_IDLE) != SCHED_IDLE) {
    stall.release();
    GTEST_SKIP() << "no SCHED_IDLE here (the writer needs CAP_SYS_NICE to leave it again)";
  }
  for (uint64_t k = 1; k <= 2; k++) {
    Owned o = next_checkpoint(model, k);
    ASSERT_TRUE(w->add_in_background(std::move(o.input), "tick", std::move(o.pages)).ok());
  }
  EXPECT_EQ(w->thread_policy(), SCHED_OTHER) << "3 queued: lifted by the caller at once";
  stall.release();
  ASSERT_TRUE(w->wait().ok());
  Owned last = next_checkpoint(model, 3);
  ASSERT_TRUE(w->add_in_background(std::move(last.input), "tick", std::move(last.pages)).ok());
  EXPECT_EQ(until_policy(SCHED_IDLE), SCHED_IDLE) << "caught up: idle class again";
  ASSERT_TRUE(w->finish().ok());
  EXPECT_EQ(w->stats().stored, 4u);
}

TEST(CheckpointWriter, DestructorStoresWhatWasQueued) {
  TempDir tmp;
  Model model(3);
  std::weak_ptr<std::vector<uint8_t>> last;
  {
    auto w = start_writer(tmp);
    ASSERT_TRUE(w);
    StoreStall stall(tmp);
    for (uint64_t k = 0; k < 3; k++) {
      Owned o = next_checkpoint(model, k);
      last = o.pages;
      ASSERT_TRUE(w->add_in_background(std::move(o.input), "tick", std::move(o.pages)).ok());
      ASSERT_TRUE(w->append_event(event(k, 0)).ok());
    }
    stall.release();
  }  // no finish: as when the recorder fails
  EXPECT_TRUE(last.expired());
  auto r = open_reader(tmp);
  ASSERT_TRUE(r);
  EXPECT_FALSE(r->open_report().finished);
  ASSERT_EQ(r->checkpoints().size(), 3u);
  for (uint64_t k = 0; k < 3; k++) EXPECT_EQ(store::testing::compare_checkpoint(*r, model, k), "");
  for (uint64_t k = 0; k < 2; k++) {  // the last segment's log is unsealed: buffered events may be lost
    auto evs = r->segment_events(SegmentId(k));
    ASSERT_TRUE(evs.ok()) << evs.error().message;
    ASSERT_EQ(evs->size(), 1u);
    EXPECT_EQ((*evs)[0].pc, event(k, 0).pc);
  }
}

// finish() lets the thread go (the destructor's join does not wait for it
// to get a CPU): what was queued is stored first, and a checkpoint offered
// after the end is refused rather than queued for a thread that is gone.
TEST(CheckpointWriter, AfterFinishACheckpointIsRefusedNotQueued) {
  TempDir tmp;
  Model model(5);
  auto w = start_writer(tmp);
  ASSERT_TRUE(w);
  {
    StoreStall stall(tmp);
    Owned o = next_checkpoint(model, 0);
    ASSERT_TRUE(w->add_in_background(std::move(o.input), "start", std::move(o.pages)).ok());
    ASSERT_TRUE(w->append_event(event(0, 0)).ok());
    stall.release();
  }
  ASSERT_TRUE(w->finish().ok());
  Owned late = next_checkpoint(model, 1);
  Status st = w->add_in_background(std::move(late.input), "tick", std::move(late.pages));
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message.find("finished"), std::string::npos) << st.error().message;
  EXPECT_TRUE(w->wait().ok());  // nothing pending: returns at once
  w.reset();
  auto r = open_reader(tmp);
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->open_report().finished);
  ASSERT_EQ(r->checkpoints().size(), 1u);
  EXPECT_EQ(store::testing::compare_checkpoint(*r, model, 0), "");
}

TEST(CheckpointWriter, StoreErrorSurfacesFromALaterCallAndStopsStoring) {
  TempDir tmp;
  Model model(11);
  std::weak_ptr<std::vector<uint8_t>> rejected_pages, after_pages;
  {
    auto w = start_writer(tmp);
    ASSERT_TRUE(w);
    StoreStall stall(tmp);  // all queue before the store sees any
    for (uint64_t k = 0; k < 2; k++) {
      Owned c = next_checkpoint(model, k);
      ASSERT_TRUE(w->add_in_background(std::move(c.input), "tick", std::move(c.pages)).ok());
      for (uint64_t i = 0; i < 5; i++) ASSERT_TRUE(w->append_event(event(k, i)).ok());
    }
    Owned bad = next_checkpoint(model, 2);
    bad.input.dirty.at(0).vaddr += 1;  // the store rejects a page that is not page aligned
    rejected_pages = bad.pages;
    ASSERT_TRUE(w->add_in_background(std::move(bad.input), "tick", std::move(bad.pages)).ok());
    ASSERT_TRUE(w->append_event(event(2, 0)).ok());
    Owned after = next_checkpoint(model, 3);
    after_pages = after.pages;
    ASSERT_TRUE(w->add_in_background(std::move(after.input), "tick", std::move(after.pages)).ok());
    stall.release();

    // The event path reports it once the thread has met it.
    Status st = ok_status();
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    for (uint64_t i = 1; st.ok() && std::chrono::steady_clock::now() < deadline; i++) {
      st = w->append_event(event(3, i));
      if (st.ok()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    ASSERT_FALSE(st.ok()) << "the store's error never surfaced";
    EXPECT_NE(st.error().message.find("not page aligned"), std::string::npos) << st.error().message;
    EXPECT_NE(st.error().message.find("storing a checkpoint (tick)"), std::string::npos) << st.error().message;

    // And every later call, with nothing more stored.
    EXPECT_FALSE(w->wait().ok());
    Owned more = next_checkpoint(model, 4);
    EXPECT_FALSE(w->add_now(more.input, "tick").ok());
    EXPECT_FALSE(w->add_in_background(std::move(more.input), "tick", more.pages).ok());
    Status fin = w->finish();
    ASSERT_FALSE(fin.ok());
    EXPECT_NE(fin.error().message.find("not page aligned"), std::string::npos) << fin.error().message;
    EXPECT_TRUE(rejected_pages.expired());
    EXPECT_TRUE(after_pages.expired());
    EXPECT_EQ(w->stats().stored, 2u);
  }
  auto r = open_reader(tmp);
  ASSERT_TRUE(r);
  EXPECT_FALSE(r->open_report().finished);
  ASSERT_EQ(r->checkpoints().size(), 2u);  // not the rejected one, nor the one after it
  for (uint64_t k = 0; k < 2; k++) EXPECT_EQ(store::testing::compare_checkpoint(*r, model, k), "");
  auto evs = r->segment_events(SegmentId(0));  // sealed by checkpoint 1
  ASSERT_TRUE(evs.ok()) << evs.error().message;
  EXPECT_EQ(evs->size(), 5u);
}

// With the queue full behind a stalled store, add_in_background returns only
// once an earlier checkpoint is stored, and says how long it waited.
void expect_blocks_until_stored(CheckpointWriter::Limits limits, uint32_t pages_each, int admitted) {
  TempDir tmp;
  Model model(5);
  auto w = start_writer(tmp, limits);
  ASSERT_TRUE(w);
  StoreStall stall(tmp);
  uint64_t k = 0;
  for (; k < uint64_t(admitted); k++) {
    Owned o = next_checkpoint(model, k, pages_each);
    ASSERT_TRUE(w->add_in_background(std::move(o.input), "tick", std::move(o.pages)).ok());
  }
  EXPECT_EQ(w->stats().blocked, 0u);

  std::atomic<bool> returned{false};
  uint64_t stored_at_return = 0;
  Owned o = next_checkpoint(model, k, pages_each);
  std::thread adder([&] {
    // The only producer meanwhile: the test's thread only reads stats().
    EXPECT_TRUE(w->add_in_background(std::move(o.input), "tick", std::move(o.pages)).ok());
    stored_at_return = w->stats().stored;
    returned = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_FALSE(returned.load()) << "add_in_background did not wait for room";
  EXPECT_EQ(w->stats().stored, 0u);
  stall.release();
  adder.join();
  EXPECT_GE(stored_at_return, 1u);
  CheckpointWriter::Stats s = w->stats();
  EXPECT_EQ(s.blocked, 1u);
  EXPECT_GE(s.blocked_ns, 100'000'000u);
  ASSERT_TRUE(w->finish().ok());
  EXPECT_EQ(w->stats().stored, uint64_t(admitted) + 1);
  auto r = open_reader(tmp);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->checkpoints().size(), uint64_t(admitted) + 1);
}

TEST(CheckpointWriter, BackpressureOnCheckpointCount) {
  CheckpointWriter::Limits limits;
  limits.max_checkpoints = 2;
  expect_blocks_until_stored(limits, 4, 2);
}

TEST(CheckpointWriter, BackpressureOnQueuedBytes) {
  // Checkpoint 0 alone is over the bound (every populated page) and still
  // admitted into the empty queue; the next one waits.
  CheckpointWriter::Limits limits;
  limits.max_bytes = 8 * kPageSize;
  expect_blocks_until_stored(limits, 4, 1);
}

// The syscall buffer's entries are handed over raw and turned into events on
// the thread: they land between the events appended before and after them,
// whether the thread was busy (stalled store) or idle when they came.
TEST(CheckpointWriter, EventSourcesLandInOrderWithOtherEvents) {
  TempDir tmp;
  Model model(9);
  const uint64_t kCheckpoints = 4;
  auto source_of = [](uint64_t k, uint64_t from, uint64_t n) {
    return [k, from, n](const CheckpointWriter::EventAppender& append) -> Status {
      for (uint64_t i = from; i < from + n; i++) TRY(append(event(k, i)));
      return ok_status();
    };
  };
  {
    auto w = start_writer(tmp);
    ASSERT_TRUE(w);
    auto stall = std::make_unique<StoreStall>(tmp);
    for (uint64_t k = 0; k < kCheckpoints; k++) {
      if (k == kCheckpoints / 2) {
        stall->release();
        ASSERT_TRUE(w->wait().ok());
      }
      Owned o = next_checkpoint(model, k);
      ASSERT_TRUE(w->add_in_background(std::move(o.input), "tick", std::move(o.pages)).ok());
      if (k >= kCheckpoints / 2) {
        ASSERT_TRUE(w->wait().ok());  // idle: the next event is written directly
      }
      ASSERT_TRUE(w->append_event(event(k, 0)).ok());
      ASSERT_TRUE(w->append_events(source_of(k, 1, 30), 30 * 88).ok());
      ASSERT_TRUE(w->append_event(event(k, 31)).ok());
      ASSERT_TRUE(w->append_events(source_of(k, 32, 5), 5 * 88).ok());
    }
    ASSERT_TRUE(w->finish().ok());
  }
  auto r = open_reader(tmp);
  ASSERT_TRUE(r);
  ASSERT_EQ(r->checkpoints().size(), kCheckpoints);
  for (uint64_t k = 0; k < kCheckpoints; k++) {
    auto evs = r->segment_events(SegmentId(k));
    ASSERT_TRUE(evs.ok()) << evs.error().message;
    ASSERT_EQ(evs->size(), 37u) << "segment " << k;
    for (uint64_t i = 0; i < evs->size(); i++) EXPECT_EQ((*evs)[i].pc, event(k, i).pc) << "segment " << k << " event " << i;
  }
}

// Entries handed over count against max_bytes: behind a stalled store the
// caller waits instead of holding ever more of them.
TEST(CheckpointWriter, EventSourcesWaitPastTheByteBound) {
  TempDir tmp;
  Model model(4);
  CheckpointWriter::Limits limits;
  limits.max_bytes = 1 << 20;
  auto w = start_writer(tmp, limits);
  ASSERT_TRUE(w);
  StoreStall stall(tmp);
  Owned o = next_checkpoint(model, 0);
  ASSERT_TRUE(w->add_in_background(std::move(o.input), "start", std::move(o.pages)).ok());
  auto one = [](uint64_t i) {
    return [i](const CheckpointWriter::EventAppender& append) { return append(event(0, i)); };
  };
  ASSERT_TRUE(w->append_events(one(0), 700 << 10).ok());  // admitted: nothing else waits
  std::atomic<bool> returned{false};
  std::thread adder([&] {
    EXPECT_TRUE(w->append_events(one(1), 700 << 10).ok());
    returned = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_FALSE(returned.load()) << "append_events did not wait for room";
  stall.release();
  adder.join();
  EXPECT_EQ(w->stats().blocked, 1u);
  EXPECT_GE(w->stats().blocked_ns, 100'000'000u);
  ASSERT_TRUE(w->finish().ok());
  auto r = open_reader(tmp);
  ASSERT_TRUE(r);
  auto evs = r->segment_events(SegmentId(0));
  ASSERT_TRUE(evs.ok()) << evs.error().message;
  ASSERT_EQ(evs->size(), 2u);
  EXPECT_EQ((*evs)[1].pc, event(0, 1).pc);
}

}  // namespace
}  // namespace slsdbg::recorder
