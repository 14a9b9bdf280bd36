// A recording that keeps a mapped file (format 6): pages of a private file
// mapping absent from the tree read as the kept copy's bytes, a zero page the
// program wrote there reads as zero, other memory as before; a mapping whose
// path now names another file is not kept.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <vector>

#include "store/format.h"
#include "store/kept_files.h"
#include "store/tests/test_util.h"

namespace slsdbg::store {
namespace {

using testing::TempDir;

constexpr uint64_t kBase = 0x7f0000000000;

std::string write_file(const std::string& path, size_t pages) {
  std::vector<uint8_t> bytes(pages * kPageSize - 100);  // ends inside its last page
  for (size_t i = 0; i < bytes.size(); i++) bytes[i] = uint8_t(i / kPageSize + 1);
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
  return path;
}

Mapping mapping_of(const std::string& path, uint64_t start, uint64_t pages, uint64_t offset) {
  struct stat st;
  EXPECT_EQ(::stat(path.c_str(), &st), 0);
  Mapping m;
  m.start = start;
  m.end = start + pages * kPageSize;
  m.prot = 1;
  m.file_offset = offset;
  m.dev = st.st_dev;
  m.inode = st.st_ino;
  m.path = path;
  return m;
}

TEST(KeptFiles, UntouchedPagesReadAsTheFileAndCopiesAsStored) {
  TempDir tmp;
  const std::string lib = write_file(tmp.path() + "/lib.so", 5);
  const Mapping m = mapping_of(lib, kBase, 4, kPageSize);  // maps file pages 1..4, the last one partial
  auto w = RecordingWriter::create(tmp.rec(), testing::test_meta());
  ASSERT_TRUE(w.ok()) << w.error().message;
  auto kept = keep_mapped_file(tmp.rec(), m);
  ASSERT_TRUE(kept.ok() && *kept);
  struct stat st;
  ASSERT_EQ(::stat(kept_file_path(tmp.rec(), m.dev, m.inode).c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);

  std::vector<uint8_t> zero(kPageSize, 0), copy(kPageSize, 0xab), anon(kPageSize, 0xcd);
  CheckpointInput in;
  in.state.mappings.push_back(m);
  Mapping a;
  a.start = kBase + 0x100000;
  a.end = a.start + kPageSize;
  a.flags = flag(MappingFlags::Anonymous);
  in.state.mappings.push_back(a);
  in.dirty.push_back({kBase + kPageSize, copy.data()});   // the program's copy of file page 2
  in.dirty.push_back({kBase + 2 * kPageSize, zero.data()});  // zeroed by the program
  in.dirty.push_back({a.start, anon.data()});
  ASSERT_TRUE((*w)->add_checkpoint(in, "start").ok());
  ASSERT_TRUE((*w)->finish().ok());

  auto r = RecordingReader::open(tmp.rec());
  ASSERT_TRUE(r.ok()) << r.error().message;
  std::vector<uint8_t> page(kPageSize);
  auto read = [&](uint64_t addr) {
    EXPECT_TRUE((*r)->read_memory(CheckpointId(0), addr, page).ok());
    return page;
  };
  EXPECT_EQ(read(kBase), std::vector<uint8_t>(kPageSize, 2)) << "file page 1 (the mapping starts at offset 4096)";
  EXPECT_EQ(read(kBase + kPageSize), copy);
  EXPECT_EQ(read(kBase + 2 * kPageSize), zero) << "a zero page written there is not the file's";
  std::vector<uint8_t> last = read(kBase + 3 * kPageSize);
  EXPECT_EQ(last[0], 5);
  EXPECT_EQ(last[kPageSize - 101], 5);
  EXPECT_EQ(last[kPageSize - 100], 0) << "beyond the end of the file reads as zero";
  EXPECT_EQ(read(a.start), anon);
  EXPECT_EQ(read(a.start + kPageSize), zero) << "outside every mapping";
}

TEST(KeptFiles, AMappingWhosePathNowNamesAnotherFileIsNotKept) {
  TempDir tmp;
  const std::string lib = write_file(tmp.path() + "/lib.so", 2);
  Mapping m = mapping_of(lib, kBase, 2, 0);
  m.inode += 1;  // the mapped file was replaced since
  auto kept = keep_mapped_file(tmp.rec(), m);
  ASSERT_TRUE(kept.ok());
  EXPECT_FALSE(*kept);
  m = mapping_of(lib, kBase, 2, 0);
  m.flags = flag(MappingFlags::Shared);
  EXPECT_FALSE(keepable(m)) << "a shared mapping follows the file: its pages are copied";
  m = mapping_of(lib, kBase, 2, 0);
  m.path = tmp.path() + "/missing";
  EXPECT_FALSE(*keep_mapped_file(tmp.rec(), m));
}

TEST(KeptFiles, RecordingsThatSharePoolShareOneCopy) {
  TempDir tmp;
  const std::string lib = write_file(tmp.path() + "/lib.so", 2);
  const Mapping m = mapping_of(lib, kBase, 2, 0);
  const std::string member = tmp.rec() + "/members/42";
  ASSERT_EQ(::mkdir(tmp.rec().c_str(), 0700), 0);
  ASSERT_EQ(::mkdir((tmp.rec() + "/members").c_str(), 0700), 0);
  ASSERT_EQ(::mkdir(member.c_str(), 0700), 0);
  auto kept = keep_mapped_file(member, m, tmp.rec());
  ASSERT_TRUE(kept.ok() && *kept);
  struct stat in_pool, in_member;
  ASSERT_EQ(::stat(kept_file_path(tmp.rec(), m.dev, m.inode).c_str(), &in_pool), 0);
  ASSERT_EQ(::stat(kept_file_path(member, m.dev, m.inode).c_str(), &in_member), 0);
  EXPECT_EQ(in_pool.st_ino, in_member.st_ino) << "one copy, linked";
  EXPECT_EQ(in_pool.st_nlink, 2u);
}

}  // namespace
}  // namespace slsdbg::store
