// The CPUID record cache: a pinned thread's record is kept per boot and CPU
// and served from the file (a value planted there comes back), a record whose
// leaf 1 differs from this CPU's is refused, and an unpinned thread neither
// reads nor writes the cache.
#include "process/cpuid_cache.h"

#include <cpuid.h>
#include <gtest/gtest.h>
#include <sched.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <thread>

namespace slsdbg::process {
namespace {

namespace fs = std::filesystem;

struct CacheDir {
  std::string path;
  CacheDir() {
    char tmpl[] = "/tmp/slsdbg-cpuid-cache-XXXXXX";
    path = ::mkdtemp(tmpl);
    path += "/cpuid";
  }
  ~CacheDir() { fs::remove_all(fs::path(path).parent_path()); }
  std::vector<fs::path> files() const {
    std::vector<fs::path> out;
    if (fs::exists(path))
      for (const auto& e : fs::directory_iterator(path)) out.push_back(e.path());
    return out;
  }
};

std::vector<uint8_t> read_all(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}
void write_all(const fs::path& p, const std::vector<uint8_t>& bytes) {
  std::ofstream(p, std::ios::binary | std::ios::trunc).write(reinterpret_cast<const char*>(bytes.data()), bytes.size());
}

// Runs `fn` on a thread pinned to the CPU this one is on.
template <typename Fn>
void on_pinned_thread(Fn fn) {
  std::thread t([&] {
    ASSERT_TRUE(pin_to_cpu(choose_record_cpu()).ok());
    fn();
  });
  t.join();
}

TEST(CpuidCache, PinnedThreadKeepsItsRecordAndUsesIt) {
  CacheDir dir;
  on_pinned_thread([&] {
    const std::vector<CpuidEntry> first = cpuid_leaves_of_pinned_cpu(dir.path);
    const std::vector<CpuidEntry> fresh = read_cpuid_leaves();
    ASSERT_EQ(first.size(), fresh.size());
    ASSERT_EQ(dir.files().size(), 1u);
    // Plant a value in a leaf other than 1: the cached record is what comes back.
    auto cached = decode_cpuid(read_all(dir.files()[0]));
    ASSERT_TRUE(cached.ok());
    ASSERT_GT(cached->size(), 2u);
    CpuidEntry& planted = cached->back();
    ASSERT_NE(planted.leaf, 1u);
    planted.eax ^= 0x5a5a5a5a;
    write_all(dir.files()[0], encode_cpuid(*cached));
    const std::vector<CpuidEntry> second = cpuid_leaves_of_pinned_cpu(dir.path);
    ASSERT_EQ(second.size(), cached->size());
    EXPECT_EQ(second.back().eax, planted.eax);
  });
}

TEST(CpuidCache, RecordWithAnotherLeafOneIsRefused) {
  CacheDir dir;
  on_pinned_thread([&] {
    (void)cpuid_leaves_of_pinned_cpu(dir.path);
    ASSERT_EQ(dir.files().size(), 1u);
    auto cached = decode_cpuid(read_all(dir.files()[0]));
    ASSERT_TRUE(cached.ok());
    for (CpuidEntry& e : *cached)
      if (e.leaf == 1) e.ecx ^= 1u << 31;  // another CPU's features
    write_all(dir.files()[0], encode_cpuid(*cached));
    const std::vector<CpuidEntry> got = cpuid_leaves_of_pinned_cpu(dir.path);
    for (const CpuidEntry& e : got)
      if (e.leaf == 1) {
        uint32_t a, b, c, d;
        __cpuid_count(1, 0, a, b, c, d);
        EXPECT_EQ(e.ecx, c);
      }
    // ... and replaced by this CPU's record.
    auto rewritten = decode_cpuid(read_all(dir.files()[0]));
    ASSERT_TRUE(rewritten.ok());
    EXPECT_EQ(rewritten->size(), got.size());
  });
}

TEST(CpuidCache, UnpinnedThreadLeavesNoRecord) {
  cpu_set_t set;
  ASSERT_EQ(sched_getaffinity(0, sizeof set, &set), 0);
  if (CPU_COUNT(&set) < 2) GTEST_SKIP() << "one CPU: every thread is pinned";
  CacheDir dir;
  EXPECT_FALSE(cpuid_leaves_of_pinned_cpu(dir.path).empty());
  EXPECT_TRUE(dir.files().empty());
}

TEST(CpuidCache, OffReadsAfresh) {
  on_pinned_thread([&] { EXPECT_EQ(cpuid_leaves_of_pinned_cpu("").size(), read_cpuid_leaves().size()); });
}

}  // namespace
}  // namespace slsdbg::process
