// Checks retention: dropping checkpoints older than a bound (while the writer
// is alive, and after it finished) keeps every later checkpoint and segment
// fully readable, removes the dropped ones, and later writes reuse the freed
// blocks instead of growing the extent files.
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

  Status st = drop_checkpoints_before(tmp.rec(), CheckpointId(40));
  ASSERT_TRUE(st.ok()) << st.error().message;
  EXPECT_FALSE(testing::path_exists_for_test(tmp.rec() + "/events/000010.log")) << "dropped segment logs are deleted";

  WriterStats before = (*w)->stats();
  EXPECT_EQ(before.blocks_reused, 0u);
  for (uint64_t k = 60; k < 100; k++) add(k);
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

}  // namespace
}  // namespace slsdbg::store
