// Checks that extent files are preallocated in doubling steps: 256 KiB first,
// then doubling up to 16 MiB a step, never past the extent's capacity; that a
// tiny recording takes little disk (256 KiB while it records, the blocks it
// wrote once finished); that a recording growing through many steps
// (and into a second extent) reads back exactly; and that blocks written
// through the page cache at the start and O_DIRECT past it read back alike.
#include <sys/stat.h>

#include "store/format.h"
#include "store/tests/test_util.h"

namespace slsdbg::store {
namespace {

using testing::Model;
using testing::TempDir;

TEST(ExtentGrowth, StepsStartSmallAndDoubleUpToTheLargestStep) {
  EXPECT_EQ(next_preallocation(0, kBlocksPerExtent), kFirstPreallocateBlocks);
  std::vector<uint64_t> sizes;
  uint64_t size = 0;
  while (size < 3 * kPreallocateBlocks) {
    size += next_preallocation(size, kBlocksPerExtent);
    sizes.push_back(size);
  }
  // 64, 128, ..., 4096 blocks, then 16 MiB steps.
  const std::vector<uint64_t> want = {64, 128, 256, 512, 1024, 2048, 4096, 8192, 12288};
  EXPECT_EQ(sizes, want);
}

TEST(ExtentGrowth, NeverPastTheCapacity) {
  EXPECT_EQ(next_preallocation(0, 16), 16u);
  EXPECT_EQ(next_preallocation(16, 16), 0u);
  EXPECT_EQ(next_preallocation(64, 100), 36u);
  EXPECT_EQ(next_preallocation(kBlocksPerExtent - 5, kBlocksPerExtent), 5u);
}

uint64_t disk_bytes(const std::string& path) {
  struct stat st{};
  EXPECT_EQ(0, ::stat(path.c_str(), &st)) << path;
  return uint64_t(st.st_blocks) * 512;
}
uint64_t file_bytes(const std::string& path) {
  struct stat st{};
  EXPECT_EQ(0, ::stat(path.c_str(), &st)) << path;
  return uint64_t(st.st_size);
}

TEST(ExtentGrowth, ATinyRecordingTakesLittleDisk) {
  TempDir tmp;
  {
    auto w = RecordingWriter::create(tmp.rec(), testing::test_meta());
    ASSERT_TRUE(w.ok()) << w.error().message;
    std::vector<uint8_t> page(kPageSize, 0x5a);
    CheckpointInput in;
    in.dirty.push_back(DirtyPage{0x400000, page.data()});
    ASSERT_TRUE((*w)->add_checkpoint(in, "start").ok());
    EXPECT_EQ(file_bytes(tmp.rec() + "/pages/000000.ext"), kFirstPreallocateBlocks * kBlockSize) << "while recording";
    ASSERT_TRUE((*w)->finish().ok());
  }
  // Finished: the header, one data block and the tree path to it (5 nodes).
  const std::string ext = tmp.rec() + "/pages/000000.ext";
  EXPECT_EQ(file_bytes(ext), 7 * kBlockSize);
  EXPECT_LE(disk_bytes(ext), 8 * kBlockSize);
  auto r = RecordingReader::open(tmp.rec());
  ASSERT_TRUE(r.ok()) << r.error().message;
  uint8_t got[16];
  ASSERT_TRUE((*r)->read_memory(CheckpointId(0), 0x400000, got).ok());
  EXPECT_EQ(got[0], 0x5a);
  EXPECT_EQ(got[15], 0x5a);
}

TEST(ExtentGrowth, AGrowingRecordingReadsBackAcrossStepsAndExtents) {
  TempDir tmp;
  Model model(7);
  const uint64_t kCheckpoints = 60;
  WriterOptions options;
  options.blocks_per_extent = 2000;  // the first file fills (64 .. 1024, then 976), a second one starts
  {
    auto w = RecordingWriter::create(tmp.rec(), testing::test_meta(), options);
    ASSERT_TRUE(w.ok()) << w.error().message;
    std::vector<uint8_t> storage;
    for (uint64_t k = 0; k < kCheckpoints; k++) {
      auto id = (*w)->add_checkpoint(model.next(k, storage, 80), k == 0 ? "start" : "tick");
      ASSERT_TRUE(id.ok()) << id.error().message;
    }
    ASSERT_TRUE((*w)->finish().ok());
  }
  EXPECT_EQ(file_bytes(tmp.rec() + "/pages/000000.ext"), 2000 * kBlockSize);
  const uint64_t second = file_bytes(tmp.rec() + "/pages/000001.ext");
  EXPECT_GT(second, kBlockSize) << "the second extent holds blocks";
  EXPECT_LT(second, 2000 * kBlockSize);
  auto r = RecordingReader::open(tmp.rec());
  ASSERT_TRUE(r.ok()) << r.error().message;
  for (uint64_t k = 0; k < kCheckpoints; k++) EXPECT_EQ(testing::compare_checkpoint(**r, model, k), "") << "checkpoint " << k;
}

// The first 4 MiB of blocks go through the page cache, the rest O_DIRECT
// (extent_writer.cc): one checkpoint whose 1,500 distinct pages cross that
// point inside one staging buffer, then one rewriting pages on both sides.
TEST(ExtentGrowth, BlocksOnBothSidesOfTheBufferedStartReadBack) {
  TempDir tmp;
  constexpr uint64_t kPages = 1500, kBase = 0x10000000;
  std::vector<uint8_t> data(kPages * kPageSize);
  {
    auto w = RecordingWriter::create(tmp.rec(), testing::test_meta());
    ASSERT_TRUE(w.ok()) << w.error().message;
    CheckpointInput in;
    for (uint64_t i = 0; i < kPages; i++) {
      testing::fill_page(i + 1, data.data() + i * kPageSize);
      in.dirty.push_back(DirtyPage{kBase + i * kPageSize, data.data() + i * kPageSize});
    }
    ASSERT_TRUE((*w)->add_checkpoint(in, "start").ok());
    CheckpointInput again;
    for (uint64_t i = 0; i < kPages; i += 7) {
      testing::fill_page(100000 + i, data.data() + i * kPageSize);
      again.dirty.push_back(DirtyPage{kBase + i * kPageSize, data.data() + i * kPageSize});
    }
    ASSERT_TRUE((*w)->add_checkpoint(again, "tick").ok());
    ASSERT_TRUE((*w)->finish().ok());
  }
  auto r = RecordingReader::open(tmp.rec());
  ASSERT_TRUE(r.ok()) << r.error().message;
  std::vector<uint8_t> got(kPageSize), want(kPageSize);
  for (uint64_t k = 0; k < 2; k++)
    for (uint64_t i = 0; i < kPages; i++) {
      ASSERT_TRUE((*r)->read_memory(CheckpointId(k), kBase + i * kPageSize, got).ok());
      testing::fill_page(k == 1 && i % 7 == 0 ? 100000 + i : i + 1, want.data());
      ASSERT_EQ(got, want) << "checkpoint " << k << " page " << i;
    }
}

}  // namespace
}  // namespace slsdbg::store
