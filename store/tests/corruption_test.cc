// Checks that a flipped byte in a data block, a tree node or an event log
// gives an error naming the checkpoint and address (or the log), never data.
#include <fcntl.h>
#include <sqlite3.h>
#include <unistd.h>

#include "store/format.h"
#include "store/tests/test_util.h"

namespace slsdbg::store {
namespace {

constexpr uint64_t kAddr = 0x10000000;

// A recording of two checkpoints; page kAddr holds content 4242 in both.
void write_small_recording(const std::string& rec) {
  auto w = RecordingWriter::create(rec, testing::test_meta());
  ASSERT_TRUE(w.ok()) << w.error().message;
  std::vector<uint8_t> pages(3 * kPageSize);
  for (int i = 0; i < 3; i++) testing::fill_page(4242 + i, pages.data() + i * kPageSize);
  CheckpointInput in;
  for (int i = 0; i < 3; i++) in.dirty.push_back(DirtyPage{kAddr + i * kPageSize, pages.data() + i * kPageSize});
  ASSERT_TRUE((*w)->add_checkpoint(in, "start").ok());
  Event e;
  e.syscall_no = 1;
  ASSERT_TRUE((*w)->append_event(e).ok());
  in.dirty.resize(1);
  in.dirty[0].vaddr = kAddr + 5 * kPageSize;
  ASSERT_TRUE((*w)->add_checkpoint(in, "tick").ok());
  ASSERT_TRUE((*w)->finish().ok());
}

void flip_byte(const std::string& path, uint64_t offset) {
  int fd = ::open(path.c_str(), O_RDWR);
  ASSERT_GE(fd, 0);
  uint8_t b;
  ASSERT_EQ(pread(fd, &b, 1, off_t(offset)), 1);
  b ^= 0x40;
  ASSERT_EQ(pwrite(fd, &b, 1, off_t(offset)), 1);
  close(fd);
}

// Offset of the block holding content ID in the first extent.
uint64_t find_block(const std::string& rec, uint64_t id) {
  std::vector<uint8_t> want(kPageSize), got(kPageSize);
  testing::fill_page(id, want.data());
  int fd = ::open((rec + "/pages/000000.ext").c_str(), O_RDONLY);
  for (uint64_t off = kBlockSize; pread(fd, got.data(), kPageSize, off_t(off)) == ssize_t(kPageSize); off += kBlockSize)
    if (got == want) {
      close(fd);
      return off;
    }
  close(fd);
  return 0;
}

uint64_t root_ref(const std::string& rec, int checkpoint) {
  sqlite3* db = nullptr;
  sqlite3_open((rec + "/catalog.db").c_str(), &db);
  sqlite3_stmt* st = nullptr;
  sqlite3_prepare_v2(db, "SELECT root_ref FROM checkpoints WHERE id=?", -1, &st, nullptr);
  sqlite3_bind_int(st, 1, checkpoint);
  uint64_t ref = sqlite3_step(st) == SQLITE_ROW ? uint64_t(sqlite3_column_int64(st, 0)) : 0;
  sqlite3_finalize(st);
  sqlite3_close(db);
  return ref;
}

TEST(StoreCorruption, FlippedDataByteIsAnErrorNamingCheckpointAndAddress) {
  testing::TempDir tmp;
  write_small_recording(tmp.rec());
  uint64_t off = find_block(tmp.rec(), 4242);
  ASSERT_NE(off, 0u);
  flip_byte(tmp.rec() + "/pages/000000.ext", off + 100);
  auto r = RecordingReader::open(tmp.rec());
  ASSERT_TRUE(r.ok()) << r.error().message;
  std::vector<uint8_t> buf(kPageSize);
  for (uint64_t k : {0, 1}) {
    Status st = (*r)->read_memory(CheckpointId(k), kAddr + 8, std::span<uint8_t>(buf.data(), 16));
    ASSERT_FALSE(st.ok()) << "corrupt page returned data at checkpoint " << k;
    EXPECT_NE(st.error().message.find("checkpoint " + std::to_string(k)), std::string::npos) << st.error().message;
    EXPECT_NE(st.error().message.find("0x10000000"), std::string::npos) << st.error().message;
    EXPECT_NE(st.error().message.find("checksum"), std::string::npos) << st.error().message;
  }
  // Other pages are unaffected.
  EXPECT_TRUE((*r)->read_memory(CheckpointId(0), kAddr + kPageSize, buf).ok());
  Status each = (*r)->for_each_dirty_page(CheckpointId(0), [](uint64_t, std::span<const uint8_t>) { return ok_status(); });
  EXPECT_FALSE(each.ok());
}

TEST(StoreCorruption, FlippedTreeNodeByteIsAnErrorNamingCheckpointAndAddress) {
  testing::TempDir tmp;
  write_small_recording(tmp.rec());
  uint64_t ref = root_ref(tmp.rec(), 1);
  ASSERT_NE(ref, 0u);
  flip_byte(tmp.rec() + "/pages/000000.ext", (ref & 0xffffffff) * kBlockSize + 7);
  auto r = RecordingReader::open(tmp.rec());
  ASSERT_TRUE(r.ok()) << r.error().message;
  std::vector<uint8_t> buf(kPageSize);
  Status st = (*r)->read_memory(CheckpointId(1), kAddr, buf);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message.find("checkpoint 1, address 0x10000000"), std::string::npos) << st.error().message;
  EXPECT_NE(st.error().message.find("tree node"), std::string::npos) << st.error().message;
  // Checkpoint 0 has its own root and still reads fine.
  std::vector<uint8_t> want(kPageSize);
  testing::fill_page(4242, want.data());
  ASSERT_TRUE((*r)->read_memory(CheckpointId(0), kAddr, buf).ok());
  EXPECT_EQ(buf, want);
}

TEST(StoreCorruption, FlippedEventLogByteIsAnError) {
  testing::TempDir tmp;
  write_small_recording(tmp.rec());
  flip_byte(tmp.rec() + "/events/000000.log", 42);  // inside record 0
  auto r = RecordingReader::open(tmp.rec());
  ASSERT_TRUE(r.ok()) << r.error().message;
  auto ev = (*r)->segment_events(SegmentId(0));
  ASSERT_FALSE(ev.ok());
  EXPECT_NE(ev.error().message.find("000000.log"), std::string::npos) << ev.error().message;
}

}  // namespace
}  // namespace slsdbg::store
