// Checks retention: dropping checkpoints older than a bound (while the writer
// is alive, and after it finished) keeps every later checkpoint and segment
// fully readable, removes the dropped ones, and later writes reuse the freed
// blocks instead of growing the extent files — but only once no reader that
// opened before the drop is still open.
#include <unistd.h>

#include "store/tests/test_util.h"

namespace slsdbg::store {
namespace {

TEST(StoreRetention, DropWhileRecordingThenReuseFreedBlocks) {
  testing::TempDir tmp;
  testing::Model model(99);
  auto w = RecordingWriter::create(tmp.rec(), testing::test_meta());
  ASSERT_TRUE(w.ok()) << w.error().message;
  std::vector<uint8_t> storage;
  auto add = [&](uint64_t k) {
    ASSERT_TRUE((*w)->add_checkpoint(model.next(k, storage), "tick").ok());
    Event e;
    e.syscall_no = int64_t(k);
    ASSERT_TRUE((*w)->append_event(e).ok());
  };
  for (uint64_t k = 0; k < 60; k++) add(k);
  ASSERT_TRUE(testing::path_exists_for_test(tmp.rec() + "/events/000010.log"));
  auto old_reader = RecordingReader::open(tmp.rec());  // opened before the drop
  ASSERT_TRUE(old_reader.ok()) << old_reader.error().message;

  Status st = drop_checkpoints_before(tmp.rec(), CheckpointId(40));
  ASSERT_TRUE(st.ok()) << st.error().message;
  EXPECT_FALSE(testing::path_exists_for_test(tmp.rec() + "/events/000010.log")) << "dropped segment logs are deleted";

  // While a reader that may still look at dropped checkpoints is open,
  // nothing is reused, and it still reads them correctly.
  for (uint64_t k = 60; k < 70; k++) add(k);
  EXPECT_EQ((*w)->stats().blocks_reused, 0u) << "blocks reused while a reader was open";
  for (uint64_t k = 0; k < 60; k += 7) ASSERT_EQ(testing::compare_checkpoint(**old_reader, model, k), "") << "checkpoint " << k;
  old_reader = Error::msg("closed");

  for (uint64_t k = 70; k < 100; k++) add(k);
  WriterStats after = (*w)->stats();
  EXPECT_GT(after.blocks_reused, 0u) << "blocks freed by retention were not reused";
  ASSERT_TRUE((*w)->finish().ok());

  auto r = RecordingReader::open(tmp.rec());
  ASSERT_TRUE(r.ok()) << r.error().message;
  auto infos = (*r)->checkpoints();
  ASSERT_EQ(infos.size(), 60u);
  EXPECT_EQ(infos.front().id.value, 40u);
  for (uint64_t k = 40; k < 100; k++) {
    ASSERT_EQ(testing::compare_checkpoint(**r, model, k), "") << "checkpoint " << k;
    auto ev = (*r)->segment_events(SegmentId(k));
    ASSERT_TRUE(ev.ok()) << ev.error().message;
    ASSERT_EQ(ev->size(), 1u);
    EXPECT_EQ((*ev)[0].syscall_no, int64_t(k));
  }
  std::vector<uint8_t> buf(16);
  EXPECT_FALSE((*r)->read_memory(CheckpointId(39), 0x400000, buf).ok()) << "a dropped checkpoint must not be readable";
  EXPECT_FALSE((*r)->segment_events(SegmentId(10)).ok());

  // Dropping again after the writer finished leaves the rest intact too.
  ASSERT_TRUE(drop_checkpoints_before(tmp.rec(), CheckpointId(90)).ok());
  auto r2 = RecordingReader::open(tmp.rec());
  ASSERT_TRUE(r2.ok()) << r2.error().message;
  ASSERT_EQ((*r2)->checkpoints().size(), 10u);
  for (uint64_t k = 90; k < 100; k++) ASSERT_EQ(testing::compare_checkpoint(**r2, model, k), "") << "checkpoint " << k;
  EXPECT_TRUE(drop_checkpoints_before(tmp.rec(), CheckpointId(50)).ok()) << "dropping an already dropped prefix is a no-op";
}

// A page whose only copy was dropped comes back while a reader holds off
// reuse: the writer must store it anew, not point at the freed block that is
// overwritten once the reader closes.
TEST(StoreRetention, DedupNeverPointsAtFreedBlocks) {
  testing::TempDir tmp;
  auto w = RecordingWriter::create(tmp.rec(), testing::test_meta());
  ASSERT_TRUE(w.ok()) << w.error().message;
  std::vector<uint8_t> x(kPageSize), y(kPageSize);
  testing::fill_page(111, x.data());
  testing::fill_page(222, y.data());
  auto one = [&](const std::vector<uint8_t>& page) {
    CheckpointInput in;
    in.dirty.push_back(DirtyPage{0x5000, page.data()});
    auto id = (*w)->add_checkpoint(in, "tick");
    ASSERT_TRUE(id.ok()) << id.error().message;
  };
  one(x);  // 0: only checkpoint with X
  one(y);  // 1
  ASSERT_TRUE(drop_checkpoints_before(tmp.rec(), CheckpointId(1)).ok());
  {
    auto reader = RecordingReader::open(tmp.rec());
    ASSERT_TRUE(reader.ok()) << reader.error().message;
    one(x);  // 2: X again, while reuse is held off
  }
  // Reader gone: the next checkpoint reuses the freed blocks for new pages.
  std::vector<uint8_t> many(64 * kPageSize);
  CheckpointInput in;
  for (int i = 0; i < 64; i++) {
    testing::fill_page(5000 + i, many.data() + i * kPageSize);
    in.dirty.push_back(DirtyPage{0x100000 + uint64_t(i) * kPageSize, many.data() + i * kPageSize});
  }
  ASSERT_TRUE((*w)->add_checkpoint(in, "tick").ok());
  EXPECT_GT((*w)->stats().blocks_reused, 0u);
  ASSERT_TRUE((*w)->finish().ok());
  auto r = RecordingReader::open(tmp.rec());
  ASSERT_TRUE(r.ok()) << r.error().message;
  std::vector<uint8_t> got(kPageSize);
  for (uint64_t k : {2, 3}) {
    Status st = (*r)->read_memory(CheckpointId(k), 0x5000, got);
    ASSERT_TRUE(st.ok()) << st.error().message;
    EXPECT_EQ(got, x) << "checkpoint " << k;
  }
  ASSERT_TRUE((*r)->read_memory(CheckpointId(3), 0x100000 + 5 * kPageSize, got).ok());
  EXPECT_EQ(0, std::memcmp(got.data(), many.data() + 5 * kPageSize, kPageSize));
}

}  // namespace
}  // namespace slsdbg::store
