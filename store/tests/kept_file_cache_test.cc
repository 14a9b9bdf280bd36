// The per-user cache of kept files: a second recording of the same file is a
// hard link to the cached copy (no new copy); a file written in place since
// (its ctime moved) gets a fresh copy with its new bytes, while the earlier
// recording keeps the bytes it had; a cache directory others may write is
// not used; SLSDBG_CACHE_DIR=off turns the cache off.
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>

#include "store/kept_file_cache.h"
#include "store/kept_files.h"
#include "store/tests/test_util.h"

namespace slsdbg::store {
namespace {

using testing::TempDir;

void write(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::in | std::ios::out | std::ios::trunc) << bytes;
}

std::string read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

Mapping mapping_of(const std::string& path) {
  struct stat st;
  EXPECT_EQ(::stat(path.c_str(), &st), 0);
  Mapping m;
  m.start = 0x7f0000000000;
  m.end = m.start + 4096;
  m.prot = 1;
  m.dev = st.st_dev;
  m.inode = st.st_ino;
  m.path = path;
  return m;
}

ino_t inode_of(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 ? st.st_ino : 0;
}

int entries(const std::string& dir) {
  int n = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) n += e.path().filename().string()[0] != '.';
  return n;
}

TEST(KeptFileCache, LaterRecordingsLinkTheCachedCopyUntilTheFileChanges) {
  TempDir tmp;
  const std::string cache = tmp.path() + "/cache/files", lib = tmp.path() + "/lib.so";
  write(lib, std::string(10000, 'a'));
  for (const char* r : {"/r1", "/r2", "/r3"}) ASSERT_EQ(::mkdir((tmp.path() + r).c_str(), 0700), 0);
  Mapping m = mapping_of(lib);
  ASSERT_TRUE(*keep_mapped_file(tmp.path() + "/r1", m, "", cache));
  ASSERT_TRUE(*keep_mapped_file(tmp.path() + "/r2", m, "", cache));
  const std::string k1 = kept_file_path(tmp.path() + "/r1", m.dev, m.inode);
  const std::string k2 = kept_file_path(tmp.path() + "/r2", m.dev, m.inode);
  EXPECT_EQ(inode_of(k1), inode_of(k2)) << "the second recording links the cached copy";
  EXPECT_NE(inode_of(k1), inode_of(lib)) << "the cache holds a copy, not the file itself";
  EXPECT_EQ(entries(cache), 1);
  struct stat st;
  ASSERT_EQ(::stat(cache.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);

  // Written in place (same inode): ctime moves, so the cache copies again.
  ::usleep(20000);
  write(lib, std::string(10000, 'b'));
  ASSERT_EQ(inode_of(lib), m.inode);
  ASSERT_TRUE(*keep_mapped_file(tmp.path() + "/r3", m, "", cache));
  const std::string k3 = kept_file_path(tmp.path() + "/r3", m.dev, m.inode);
  EXPECT_EQ(read(k3), std::string(10000, 'b'));
  EXPECT_EQ(read(k1), std::string(10000, 'a')) << "an earlier recording keeps the bytes it had";
  EXPECT_NE(inode_of(k3), inode_of(k1));
  EXPECT_EQ(entries(cache), 1) << "the older version left the cache";
}

TEST(KeptFileCache, CopiesNoRecordingLinksArePruned) {
  TempDir tmp;
  const std::string cache = tmp.path() + "/cache/files", a = tmp.path() + "/a.so", b = tmp.path() + "/b.so";
  write(a, "aaaa");
  write(b, "bbbb");
  for (const char* r : {"/r1", "/r2"}) ASSERT_EQ(::mkdir((tmp.path() + r).c_str(), 0700), 0);
  const Mapping ma = mapping_of(a), mb = mapping_of(b);
  ASSERT_TRUE(*keep_mapped_file(tmp.path() + "/r1", ma, "", cache));
  ASSERT_TRUE(*keep_mapped_file(tmp.path() + "/r2", mb, "", cache));
  ASSERT_EQ(entries(cache), 2);
  EXPECT_EQ(prune_kept_file_cache(cache, 0), 0) << "both copies are linked by a recording";
  // The recording holding a.so's copy is deleted: only the cache links it.
  ASSERT_EQ(::unlink(kept_file_path(tmp.path() + "/r1", ma.dev, ma.inode).c_str()), 0);
  EXPECT_EQ(prune_kept_file_cache(cache, 3600), 0) << "linked a moment ago: maybe a recorder about to link it";
  EXPECT_EQ(prune_kept_file_cache(cache, 0), 1);
  EXPECT_EQ(entries(cache), 1);
  EXPECT_EQ(read(kept_file_path(tmp.path() + "/r2", mb.dev, mb.inode)), "bbbb") << "the linked copy stays";
}

TEST(KeptFileCache, ACacheOthersMayWriteIsNotUsed) {
  TempDir tmp;
  const std::string cache = tmp.path() + "/cache", lib = tmp.path() + "/lib.so";
  write(lib, "xyz");
  ASSERT_EQ(::mkdir(cache.c_str(), 0777), 0);
  ASSERT_EQ(::chmod(cache.c_str(), 0777), 0);
  ASSERT_EQ(::mkdir((tmp.path() + "/r").c_str(), 0700), 0);
  const Mapping m = mapping_of(lib);
  ASSERT_TRUE(*keep_mapped_file(tmp.path() + "/r", m, "", cache));
  EXPECT_EQ(entries(cache), 0);
  EXPECT_EQ(read(kept_file_path(tmp.path() + "/r", m.dev, m.inode)), "xyz") << "kept by a copy of its own";
}

TEST(KeptFileCache, TheEnvironmentChoosesOrTurnsOffTheCache) {
  ::setenv("SLSDBG_CACHE_DIR", "/somewhere", 1);
  EXPECT_EQ(kept_file_cache_dir(), "/somewhere/files");
  ::setenv("SLSDBG_CACHE_DIR", "off", 1);
  EXPECT_EQ(kept_file_cache_dir(), "");
  ::unsetenv("SLSDBG_CACHE_DIR");
  ::setenv("XDG_CACHE_HOME", "/xdg", 1);
  EXPECT_EQ(kept_file_cache_dir(), "/xdg/slsdbg/files");
}

}  // namespace
}  // namespace slsdbg::store
