// Checks the per-user cache of libc's syscall sites: the table made from
// this very process's libc finds bufferable sites, is saved 0600 in a 0700
// directory and read back equal the second time; a table of another build,
// a damaged file or one others may write is not used; and a cached site is
// patched only where the bytes still hold its shape and number.
#include "recorder/record/syscallbuf_site_cache.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>

#include <gtest/gtest.h>

#include "process/proc_maps.h"

namespace slsdbg::recorder {
namespace {

std::string temp_dir() {
  char tmpl[] = "/tmp/slsdbg-sitecache.XXXXXX";
  return std::string(mkdtemp(tmpl));
}

LibcSiteTable own_table(const std::string& dir, bool* from_cache) {
  const std::vector<store::Mapping> maps = *process::read_maps(getpid());
  Result<LibcSiteTable> t = libc_site_table(getpid(), maps, dir, from_cache);
  EXPECT_TRUE(t.ok()) << (t.ok() ? "" : t.error().message);
  return t.ok() ? *t : LibcSiteTable{};
}

TEST(SysbufSiteCache, MadeOnceThenReadBack) {
  const std::string root = temp_dir();
  const std::string dir = root + "/libc-sites";
  bool cached = true;
  const LibcSiteTable first = own_table(dir, &cached);
  EXPECT_FALSE(cached);
  ASSERT_FALSE(first.build_id.empty()) << "libc has no build-id here";
  size_t reads = 0;
  for (const LibcSite& s : first.sites) reads += s.nr == 0 && !s.refused;
  EXPECT_GT(reads, 0u) << "no patchable read site in libc";
  struct stat st;
  ASSERT_EQ(stat(dir.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  ASSERT_EQ(stat((dir + "/" + first.build_id).c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);

  const LibcSiteTable second = own_table(dir, &cached);
  EXPECT_TRUE(cached);
  EXPECT_EQ(encode_site_table(second), encode_site_table(first));

  // Others may write it: made again, not read.
  chmod((dir + "/" + first.build_id).c_str(), 0622);
  own_table(dir, &cached);
  EXPECT_FALSE(cached);
  // Damaged: made again and rewritten whole.
  std::ofstream(dir + "/" + first.build_id) << "slsdbg-libc-sites 1 " << first.build_id << " 1 2 3\n7 1 0 0\n";
  own_table(dir, &cached);
  EXPECT_FALSE(cached);
  own_table(dir, &cached);
  EXPECT_TRUE(cached);
  std::system(("rm -rf " + root).c_str());
}

TEST(SysbufSiteCache, NoCacheDirStillMakesTheTable) {
  bool cached = true;
  const LibcSiteTable t = own_table("", &cached);
  EXPECT_FALSE(cached);
  EXPECT_FALSE(t.sites.empty());
}

TEST(SysbufSiteCache, DecodeRefusesOtherBuildsAndVersions) {
  LibcSiteTable t;
  t.build_id = "abcd";
  t.text_offset = 0x28000;
  t.text_size = 0x160000;
  t.sites = {{0x28100, true, 0, false}, {0x28200, false, -1, true}};
  const std::string text = encode_site_table(t);
  const std::optional<LibcSiteTable> back = decode_site_table(text, "abcd");
  ASSERT_TRUE(back);
  EXPECT_EQ(encode_site_table(*back), text);
  ASSERT_NE(back->find(0x28200), nullptr);
  EXPECT_TRUE(back->find(0x28200)->refused);
  EXPECT_EQ(back->find(0x28201), nullptr);
  EXPECT_FALSE(decode_site_table(text, "abce"));
  EXPECT_FALSE(decode_site_table(text.substr(0, text.size() - 5), "abcd"));
  EXPECT_FALSE(decode_site_table(text + "9 0 0 0\n", "abcd"));
  std::string v2 = text;
  v2[18] = '2';  // "slsdbg-libc-sites 2"
  EXPECT_FALSE(decode_site_table(v2, "abcd"));
}

TEST(SysbufSiteCache, SiteMatchesOnlyItsOwnBytes) {
  // mov $0, %eax; syscall; cmp $-4096, %rax (read, wide), 6 bytes before.
  const uint8_t read_site[14] = {0x90, 0xb8, 0, 0, 0, 0, 0x0f, 0x05, 0x48, 0x3d, 0x00, 0xf0, 0xff, 0xff};
  EXPECT_TRUE(site_matches(read_site, {0, true, 0, false}));
  EXPECT_FALSE(site_matches(read_site, {0, false, 0, false}));  // another shape
  EXPECT_FALSE(site_matches(read_site, {0, true, 1, false}));   // another number
  uint8_t moved[14];
  std::copy(std::begin(read_site), std::end(read_site), moved);
  moved[6] = 0x90;  // no `syscall` there any more
  EXPECT_FALSE(site_matches(moved, {0, true, 0, false}));
}

}  // namespace
}  // namespace slsdbg::recorder
