// Checks that hundreds of synthetic checkpoints with random dirty sets, cleared
// ranges, zero and repeated pages read back exactly (every page of every
// checkpoint), with their process state, dirty sets, events and metadata; and
// that identical pages are stored once and zero pages never.
#include <sys/stat.h>

#include <set>

#include "store/format.h"
#include "store/summary.h"
#include "store/tests/test_util.h"

namespace slsdbg::store {
namespace {

using testing::Model;
using testing::TempDir;

Event make_event(uint64_t seg, uint64_t i) {
  Event e;
  e.kind = EventKind(1 + (seg + i) % 5);
  e.tid = Tid(int32_t(100 + i));
  e.pc = 0x401000 + i;
  if (e.kind == EventKind::Syscall) {
    e.syscall_no = int64_t(i % 300);
    e.args = {1, 2, 3, seg, i, ~0ull};
    e.result = -int64_t(i);
    e.writes.push_back(MemoryWrite{0x7000 + i, std::vector<uint8_t>(i % 50, uint8_t(i))});
  } else if (e.kind == EventKind::Signal) {
    e.signo = 11;
    e.siginfo.assign(128, uint8_t(seg));
  } else if (e.kind == EventKind::Rdtsc) {
    e.tsc = 0x123456789abcull * (i + 1);
    e.tsc_aux = 7;
    e.is_rdtscp = i % 2;
  } else if (e.kind == EventKind::Exit) {
    e.exit_status = int32_t(i);
  }
  return e;
}

bool same_event(const Event& a, const Event& b) {
  if (a.writes.size() != b.writes.size()) return false;
  for (size_t i = 0; i < a.writes.size(); i++)
    if (a.writes[i].addr != b.writes[i].addr || a.writes[i].bytes != b.writes[i].bytes) return false;
  return a.kind == b.kind && a.tid == b.tid && a.pc == b.pc && a.syscall_no == b.syscall_no && a.args == b.args && a.result == b.result &&
         a.signo == b.signo && a.siginfo == b.siginfo && a.tsc == b.tsc && a.tsc_aux == b.tsc_aux && a.is_rdtscp == b.is_rdtscp &&
         a.exit_status == b.exit_status;
}

TEST(StoreRoundtrip, HundredsOfCheckpointsReadBackExactly) {
  TempDir tmp;
  Model model(42);
  const uint64_t kCheckpoints = 300;
  std::vector<std::vector<uint64_t>> dirty_sets;
  {
    auto w = RecordingWriter::create(tmp.rec(), testing::test_meta());
    ASSERT_TRUE(w.ok()) << w.error().message;
    std::vector<uint8_t> storage;
    for (uint64_t k = 0; k < kCheckpoints; k++) {
      CheckpointInput in = model.next(k, storage);
      std::set<uint64_t> ds;
      for (const auto& p : in.dirty) ds.insert(p.vaddr);
      dirty_sets.emplace_back(ds.begin(), ds.end());
      auto id = (*w)->add_checkpoint(in, k == 0 ? "start" : "tick");
      ASSERT_TRUE(id.ok()) << id.error().message;
      ASSERT_EQ(id->value, k);
      for (uint64_t i = 0; i < k % 4; i++) ASSERT_TRUE((*w)->append_event(make_event(k, i)).ok());
    }
    ASSERT_TRUE((*w)->finish().ok());
    EXPECT_FALSE((*w)->add_checkpoint(CheckpointInput{}, "tick").ok()) << "writes after finish() must fail";
  }
  auto r = RecordingReader::open(tmp.rec());
  ASSERT_TRUE(r.ok()) << r.error().message;
  const RecordingReader& rd = **r;
  EXPECT_TRUE(rd.open_report().finished);
  EXPECT_FALSE(rd.open_report().torn_tail.has_value());
  EXPECT_EQ(rd.open_report().complete_checkpoints, kCheckpoints);
  EXPECT_EQ(rd.meta().program, "/bin/model");
  EXPECT_EQ(rd.meta().args, testing::test_meta().args);
  EXPECT_EQ(rd.meta().env, testing::test_meta().env);
  EXPECT_EQ(rd.meta().cpuid, testing::test_meta().cpuid);
  EXPECT_EQ(rd.meta().tracker, "page-hash");
  EXPECT_EQ(rd.meta().interval_ns, 5'000'000u);
  auto infos = rd.checkpoints();
  ASSERT_EQ(infos.size(), kCheckpoints);
  for (uint64_t k = 0; k < kCheckpoints; k++) {
    ASSERT_EQ(testing::compare_checkpoint(rd, model, k), "");
    EXPECT_EQ(infos[k].time_ns, k * 1000);
    EXPECT_EQ(infos[k].reason, k == 0 ? "start" : "tick");
    EXPECT_EQ(infos[k].segment_events, k % 4);
    auto st = rd.process_state(CheckpointId(k));
    ASSERT_TRUE(st.ok()) << st.error().message;
    EXPECT_EQ(st->pid, int32_t(1000 + k));
    EXPECT_EQ(st->cmdline.back(), std::to_string(k));
    std::vector<uint64_t> seen;
    auto each = rd.for_each_dirty_page(CheckpointId(k), [&](uint64_t a, std::span<const uint8_t> data) -> Status {
      std::vector<uint8_t> again(kPageSize);
      TRY(rd.read_memory(CheckpointId(k), a, again));
      if (std::memcmp(again.data(), data.data(), kPageSize) != 0) return Error::msg("dirty page data differs");
      seen.push_back(a);
      return ok_status();
    });
    ASSERT_TRUE(each.ok()) << each.error().message;
    EXPECT_EQ(seen, dirty_sets[k]);
    auto events = rd.segment_events(SegmentId(k));
    ASSERT_TRUE(events.ok()) << events.error().message;
    ASSERT_EQ(events->size(), k % 4);
    for (uint64_t i = 0; i < events->size(); i++) {
      EXPECT_TRUE(same_event((*events)[i], make_event(k, i)));
      auto one = rd.segment_event(SegmentId(k), i);
      ASSERT_TRUE(one.ok()) << one.error().message;
      EXPECT_TRUE(same_event(*one, make_event(k, i)));
    }
  }
  std::vector<uint8_t> small(16);
  EXPECT_FALSE(rd.read_memory(CheckpointId(kCheckpoints), 0x400000, small).ok());
  // Unmapped memory reads as zero; unaligned ranges work.
  std::vector<uint8_t> buf(100, 0xff);
  ASSERT_TRUE(rd.read_memory(CheckpointId(5), 0x900000123, buf).ok());
  EXPECT_EQ(buf, std::vector<uint8_t>(100, 0));
  std::vector<uint8_t> whole(2 * kPageSize), part(5000);
  ASSERT_TRUE(rd.read_memory(CheckpointId(7), 0x10000000, whole).ok());
  ASSERT_TRUE(rd.read_memory(CheckpointId(7), 0x10000000 + 1000, part).ok());
  EXPECT_EQ(0, std::memcmp(part.data(), whole.data() + 1000, part.size()));
}

// Small extents (64 blocks) force many extent files; everything still reads back.
TEST(StoreRoundtrip, ManySmallExtentFiles) {
  TempDir tmp;
  Model model(5);
  WriterOptions opts;
  opts.blocks_per_extent = 64;
  auto w = RecordingWriter::create(tmp.rec(), testing::test_meta(), opts);
  ASSERT_TRUE(w.ok()) << w.error().message;
  std::vector<uint8_t> storage;
  for (uint64_t k = 0; k < 40; k++) ASSERT_TRUE((*w)->add_checkpoint(model.next(k, storage), "tick").ok());
  ASSERT_TRUE((*w)->finish().ok());
  EXPECT_TRUE(testing::path_exists_for_test(tmp.rec() + "/pages/000005.ext")) << "expected several extent files";
  auto r = RecordingReader::open(tmp.rec());
  ASSERT_TRUE(r.ok()) << r.error().message;
  for (uint64_t k = 0; k < 40; k++) ASSERT_EQ(testing::compare_checkpoint(**r, model, k), "");
  opts.blocks_per_extent = 3;
  TempDir tmp2;
  EXPECT_FALSE(RecordingWriter::create(tmp2.rec(), testing::test_meta(), opts).ok());
}

// Sync::Deferred (the recorder's mode): no sync until the interval has
// passed or finish(), and the recording reads back the same.
TEST(StoreRoundtrip, DeferredSyncSyncsAtIntervalsAndFinish) {
  for (uint32_t interval_ms : {3600 * 1000u, 1u}) {
    TempDir tmp;
    Model model(17);
    WriterOptions opts;
    opts.sync = WriterOptions::Sync::Deferred;
    opts.sync_interval_ms = interval_ms;
    opts.blocks_per_extent = 64;  // new extent files between syncs too
    auto w = RecordingWriter::create(tmp.rec(), testing::test_meta(), opts);
    ASSERT_TRUE(w.ok()) << w.error().message;
    std::vector<uint8_t> storage;
    for (uint64_t k = 0; k < 20; k++) {
      ASSERT_TRUE((*w)->add_checkpoint(model.next(k, storage), "tick").ok());
      Event e;
      e.syscall_no = int64_t(k);
      ASSERT_TRUE((*w)->append_event(e).ok());
      if (interval_ms == 1) usleep(2000);
    }
    if (interval_ms == 1) {
      EXPECT_GE((*w)->stats().syncs, 19u) << "one sync per commit 1 ms or more after the last";
    } else {
      EXPECT_EQ((*w)->stats().syncs, 0u) << "synced before the interval passed";
    }
    ASSERT_TRUE((*w)->finish().ok());
    if (interval_ms != 1) {
      EXPECT_EQ((*w)->stats().syncs, 1u) << "finish() syncs once";
    }
    auto r = RecordingReader::open(tmp.rec());
    ASSERT_TRUE(r.ok()) << r.error().message;
    EXPECT_TRUE((*r)->open_report().finished);
    for (uint64_t k = 0; k < 20; k++) {
      ASSERT_EQ(testing::compare_checkpoint(**r, model, k), "");
      auto ev = (*r)->segment_events(SegmentId(k));
      ASSERT_TRUE(ev.ok()) << ev.error().message;
      ASSERT_EQ(ev->size(), 1u);
      EXPECT_EQ((*ev)[0].syscall_no, int64_t(k));
    }
  }
}

// The buffered io_uring path (used where O_DIRECT is refused) stores the same data.
TEST(StoreRoundtrip, BufferedFallbackPathReadsBack) {
  TempDir tmp;
  Model model(13);
  WriterOptions opts;
  opts.io = WriterOptions::Io::Buffered;
  auto w = RecordingWriter::create(tmp.rec(), testing::test_meta(), opts);
  ASSERT_TRUE(w.ok()) << w.error().message;
  std::vector<uint8_t> storage;
  for (uint64_t k = 0; k < 30; k++) ASSERT_TRUE((*w)->add_checkpoint(model.next(k, storage), "tick").ok());
  EXPECT_FALSE((*w)->stats().direct_io);
  ASSERT_TRUE((*w)->finish().ok());
  auto r = RecordingReader::open(tmp.rec());
  ASSERT_TRUE(r.ok()) << r.error().message;
  for (uint64_t k = 0; k < 30; k++) ASSERT_EQ(testing::compare_checkpoint(**r, model, k), "");
}

// A recording on tmpfs (O_DIRECT only since Linux 6.6; either path must work).
TEST(StoreRoundtrip, WorksOnTmpfs) {
  if (!testing::path_exists_for_test("/dev/shm")) GTEST_SKIP() << "no /dev/shm";
  std::string base = "/dev/shm/slsdbg-store-test-" + std::to_string(getpid());
  std::filesystem::remove_all(base);
  ASSERT_EQ(0, mkdir(base.c_str(), 0700));
  Model model(9);
  {
    auto w = RecordingWriter::create(base + "/rec", testing::test_meta());
    ASSERT_TRUE(w.ok()) << w.error().message;
    std::vector<uint8_t> storage;
    for (uint64_t k = 0; k < 20; k++) ASSERT_TRUE((*w)->add_checkpoint(model.next(k, storage), "tick").ok());
    std::printf("tmpfs: extent files opened %s\n", (*w)->stats().direct_io ? "O_DIRECT" : "buffered");
    ASSERT_TRUE((*w)->finish().ok());
  }
  auto r = RecordingReader::open(base + "/rec");
  ASSERT_TRUE(r.ok()) << r.error().message;
  for (uint64_t k = 0; k < 20; k++) EXPECT_EQ(testing::compare_checkpoint(**r, model, k), "");
  r = Error::msg("closed");
  std::filesystem::remove_all(base);
}

TEST(StoreRoundtrip, IdenticalPagesStoredOnceZeroPagesNever) {
  TempDir tmp;
  auto w = RecordingWriter::create(tmp.rec(), testing::test_meta());
  ASSERT_TRUE(w.ok()) << w.error().message;
  std::vector<uint8_t> same(kPageSize), zero(kPageSize, 0);
  testing::fill_page(77, same.data());
  CheckpointInput in;
  for (uint64_t i = 0; i < 200; i++) in.dirty.push_back(DirtyPage{0x10000000 + i * kPageSize, (i % 2 ? same : zero).data()});
  ASSERT_TRUE((*w)->add_checkpoint(in, "start").ok());
  WriterStats s = (*w)->stats();
  std::printf("extent files opened with %s\n", s.direct_io ? "O_DIRECT" : "buffered io (no O_DIRECT here)");
  EXPECT_EQ(s.pages_in, 200u);
  EXPECT_EQ(s.zero_pages, 100u);
  EXPECT_EQ(s.dedup_pages, 99u);
  EXPECT_EQ(s.blocks_written - s.tree_nodes_written, 1u) << "one data block for 100 identical pages";
  ASSERT_TRUE((*w)->add_checkpoint(in, "tick").ok());
  s = (*w)->stats();
  EXPECT_EQ(s.blocks_written - s.tree_nodes_written, 1u) << "the same pages again store nothing new";
  ASSERT_TRUE((*w)->finish().ok());
  auto r = RecordingReader::open(tmp.rec());
  ASSERT_TRUE(r.ok()) << r.error().message;
  for (uint64_t i = 0; i < 200; i++) {
    std::vector<uint8_t> got(kPageSize);
    ASSERT_TRUE((*r)->read_memory(CheckpointId(1), 0x10000000 + i * kPageSize, got).ok());
    EXPECT_EQ(got, i % 2 ? same : zero);
  }
}

TEST(StoreRoundtrip, ReaderWorksWhileWriterAppends) {
  TempDir tmp;
  Model model(7);
  auto w = RecordingWriter::create(tmp.rec(), testing::test_meta());
  ASSERT_TRUE(w.ok()) << w.error().message;
  std::vector<uint8_t> storage;
  for (uint64_t k = 0; k < 5; k++) ASSERT_TRUE((*w)->add_checkpoint(model.next(k, storage), "tick").ok());
  ASSERT_TRUE((*w)->append_event(make_event(4, 0)).ok());
  auto r = RecordingReader::open(tmp.rec());
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_TRUE((*r)->open_report().writer_active);
  EXPECT_FALSE((*r)->open_report().torn_tail.has_value()) << "a live recording has no torn tail";
  EXPECT_EQ((*r)->checkpoints().size(), 5u);
  for (uint64_t k = 5; k < 10; k++) ASSERT_TRUE((*w)->add_checkpoint(model.next(k, storage), "tick").ok());
  EXPECT_EQ((*r)->checkpoints().size(), 5u) << "a reader keeps the view it opened with";
  for (uint64_t k = 0; k < 5; k++) EXPECT_EQ(testing::compare_checkpoint(**r, model, k), "");
  ASSERT_TRUE((*r)->refresh().ok());
  EXPECT_EQ((*r)->checkpoints().size(), 10u);
  for (uint64_t k = 0; k < 10; k++) EXPECT_EQ(testing::compare_checkpoint(**r, model, k), "");
  auto ev = (*r)->segment_events(SegmentId(4));
  ASSERT_TRUE(ev.ok()) << ev.error().message;
  EXPECT_EQ(ev->size(), 1u);
  ASSERT_TRUE((*r)->set_bookmark("here", "3:0:0x401000:1").ok());
  ASSERT_TRUE((*w)->finish().ok());
  auto b = (*r)->bookmarks();
  ASSERT_TRUE(b.ok());
  ASSERT_EQ(b->size(), 1u);
  EXPECT_EQ((*b)[0].second, "3:0:0x401000:1");
}

TEST(StoreRoundtrip, DirectoriesAre0700FilesAre0600) {
  TempDir tmp;
  Model model(3);
  auto w = RecordingWriter::create(tmp.rec(), testing::test_meta());
  ASSERT_TRUE(w.ok()) << w.error().message;
  std::vector<uint8_t> storage;
  ASSERT_TRUE((*w)->add_checkpoint(model.next(0, storage), "start").ok());
  ASSERT_TRUE((*w)->append_event(make_event(0, 0)).ok());
  ASSERT_TRUE((*w)->add_checkpoint(model.next(1, storage), "tick").ok());
  int files = 0;
  for (auto& e : std::filesystem::recursive_directory_iterator(tmp.rec())) {
    struct stat st;
    ASSERT_EQ(0, ::stat(e.path().c_str(), &st));
    if (S_ISDIR(st.st_mode)) {
      EXPECT_EQ(st.st_mode & 0777, 0700u) << e.path();
    } else {
      EXPECT_EQ(st.st_mode & 0777, 0600u) << e.path();
      files++;
    }
  }
  struct stat st;
  ASSERT_EQ(0, ::stat(tmp.rec().c_str(), &st));
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  EXPECT_GE(files, 4) << "catalog.db, its WAL, an extent and an event log at least";
}

// Summary counts (store/summary.h) read back by key; a recording without
// them has none, a second put of a key replaces its value, and a finished
// writer takes no more.
TEST(StoreRoundtrip, SummaryCountsReadBack) {
  TempDir tmp;
  Model model(1);
  auto w = RecordingWriter::create(tmp.rec(), testing::test_meta());
  ASSERT_TRUE(w.ok()) << w.error().message;
  std::vector<uint8_t> storage;
  ASSERT_TRUE((*w)->add_checkpoint(model.next(0, storage), "start").ok());
  {
    auto before = RecordingReader::open(tmp.rec());
    ASSERT_TRUE(before.ok()) << before.error().message;
    auto none = read_summary(**before);
    ASSERT_TRUE(none.ok()) << none.error().message;
    EXPECT_TRUE(none->empty());
  }
  ASSERT_TRUE(put_summary(**w, "children_started", 1).ok());
  ASSERT_TRUE(put_summary(**w, "children_started", 3).ok());
  ASSERT_TRUE(put_summary(**w, "other", 7).ok());
  ASSERT_TRUE((*w)->finish().ok());
  EXPECT_FALSE(put_summary(**w, "late", 1).ok());
  auto r = RecordingReader::open(tmp.rec());
  ASSERT_TRUE(r.ok()) << r.error().message;
  auto got = read_summary(**r);
  ASSERT_TRUE(got.ok()) << got.error().message;
  const std::map<std::string, uint64_t> want{{"children_started", 3}, {"other", 7}};
  EXPECT_EQ(*got, want);
}

}  // namespace
}  // namespace slsdbg::store
