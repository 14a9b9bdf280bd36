// Checks diff_maps on synthetic memory maps: growth, shrink, replacement,
// mprotect (no change) and the ranges that are never captured.
#include <gtest/gtest.h>
#include <sys/mman.h>

#include "process/inject.h"
#include "recorder/capture/address_space_diff.h"

namespace slsdbg::recorder {
namespace {

store::Mapping anon(uint64_t s, uint64_t e, uint32_t prot = PROT_READ | PROT_WRITE) {
  store::Mapping m;
  m.start = s;
  m.end = e;
  m.prot = prot;
  m.flags = store::flag(store::MappingFlags::Anonymous);
  return m;
}

store::Mapping file(uint64_t s, uint64_t e, uint64_t off, uint64_t inode) {
  store::Mapping m;
  m.start = s;
  m.end = e;
  m.file_offset = off;
  m.inode = inode;
  m.path = "/lib/x.so";
  m.prot = PROT_READ;
  return m;
}

bool eq(const std::vector<PageRange>& a, std::vector<PageRange> b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].start != b[i].start || a[i].end != b[i].end) return false;
  return true;
}

TEST(AddressSpaceDiff, GrowthShrinkAndMprotect) {
  auto d = diff_maps({anon(0x10000, 0x20000)}, {anon(0x10000, 0x28000, PROT_READ)});
  EXPECT_TRUE(eq(d.added, {{0x20000, 0x28000}}));
  EXPECT_TRUE(d.removed.empty());
  d = diff_maps({anon(0x10000, 0x20000)}, {anon(0x10000, 0x14000), anon(0x18000, 0x20000)});
  EXPECT_TRUE(d.added.empty());
  EXPECT_TRUE(eq(d.removed, {{0x14000, 0x18000}}));
}

TEST(AddressSpaceDiff, ReplacedMappingIsRemovedAndAdded) {
  auto d = diff_maps({file(0x10000, 0x20000, 0, 7)}, {file(0x10000, 0x20000, 0x1000, 7)});
  EXPECT_TRUE(eq(d.added, {{0x10000, 0x20000}}));
  EXPECT_TRUE(eq(d.removed, {{0x10000, 0x20000}}));
  d = diff_maps({file(0x10000, 0x20000, 0, 7)}, {file(0x10000, 0x14000, 0, 7), anon(0x14000, 0x20000)});
  EXPECT_TRUE(eq(d.added, {{0x14000, 0x20000}}));
  EXPECT_TRUE(eq(d.removed, {{0x14000, 0x20000}}));
}

TEST(AddressSpaceDiff, SpecialAndInjectionMappingsAreNotCaptured) {
  store::Mapping vvar = anon(0x7fff0000, 0x7fff4000, PROT_READ);
  vvar.path = "[vvar]";
  EXPECT_FALSE(capturable(vvar));
  store::Mapping vdso = anon(0x7fff4000, 0x7fff6000, PROT_READ | PROT_EXEC);
  vdso.path = "[vdso]";
  EXPECT_TRUE(capturable(vdso));  // code the recorder patches
  EXPECT_FALSE(capturable(anon(process::kInjectPageAddr, process::kInjectPageAddr + 4096)));
  store::Mapping heap = anon(0x1000000, 0x1010000);
  heap.path = "[heap]";
  EXPECT_TRUE(capturable(heap));
  auto d = diff_maps({}, {vvar, heap});
  EXPECT_TRUE(eq(d.added, {{0x1000000, 0x1010000}}));
}

}  // namespace
}  // namespace slsdbg::recorder
