// create_awaiting_meta (store/recording_early.h): the store is created while
// the rest of its meta is not known yet; the catalog gets the completed meta
// in the schema's transaction, a creation given up leaves nothing readable,
// and discard_unstarted_recording removes what it left.
#include "store/recording_early.h"

#include <future>
#include <thread>

#include "store/tests/test_util.h"

namespace slsdbg::store {
namespace {

using testing::TempDir;

TEST(EarlyCreate, TheCatalogGetsTheMetaCompletedLater) {
  TempDir tmp;
  RecordingMeta known = testing::test_meta();
  known.pid = 0;
  known.tracker = "";
  std::promise<RecordingMeta> late;
  std::thread sender([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));  // the creation waits for it
    RecordingMeta full = testing::test_meta();
    full.pid = 4242;
    full.parent_pid = 17;
    full.origin = "spawn";
    full.tracker = "uffd-wp-async";
    full.cpuid = {1, 2, 3};
    late.set_value(full);
  });
  auto w = create_awaiting_meta(tmp.rec(), known, WriterOptions{}, [f = late.get_future().share()](RecordingMeta& m) {
    m = f.get();
    return ok_status();
  });
  sender.join();
  ASSERT_TRUE(w.ok()) << w.error().message;
  std::vector<uint8_t> page(kPageSize, 7);
  CheckpointInput in;
  in.dirty.push_back(DirtyPage{0x400000, page.data()});
  ASSERT_TRUE((*w)->add_checkpoint(in, "start").ok());
  ASSERT_TRUE((*w)->finish().ok());
  auto r = RecordingReader::open(tmp.rec());
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ((*r)->meta().pid, 4242);
  EXPECT_EQ((*r)->meta().parent_pid, 17);
  EXPECT_EQ((*r)->meta().tracker, "uffd-wp-async");
  EXPECT_EQ((*r)->meta().cpuid, (std::vector<uint8_t>{1, 2, 3}));
  EXPECT_EQ((*r)->checkpoints().size(), 1u);
}

TEST(EarlyCreate, AGivenUpCreationFailsAndIsDiscarded) {
  TempDir tmp;
  auto w = create_awaiting_meta(tmp.rec(), testing::test_meta(), WriterOptions{},
                                [](RecordingMeta&) -> Status { return Error::msg("the program did not start"); });
  ASSERT_FALSE(w.ok());
  EXPECT_NE(w.error().message.find("the program did not start"), std::string::npos) << w.error().message;
  EXPECT_FALSE(RecordingReader::open(tmp.rec()).ok()) << "no meta, no recording";
  ASSERT_TRUE(discard_unstarted_recording(tmp.rec()).ok());
  EXPECT_FALSE(testing::path_exists_for_test(tmp.rec()));
}

}  // namespace
}  // namespace slsdbg::store
