// SysbufJumps: a site is refused when a direct branch enters its bytes
// after the `syscall`, near (found by disassembling its function) or far
// (a rel32 from anywhere); a branch to the instruction after it is fine.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <vector>

#include "process/proc_maps.h"
#include "recorder/record/syscallbuf_jumps.h"

using namespace slsdbg;
using namespace slsdbg::recorder;

namespace {

constexpr uint64_t kBase = 0x1000;
const std::vector<uint64_t> kFunctions = {0x1000, 0x1020};

// Function A at 0x1000: mov $0, %eax; syscall (0x1005); cmp $-4096, %rax;
// ja 0x1010; ret; 0x1010: xor %eax, %eax; then `tail` (2 bytes) and ret.
// Function B at 0x1020: jmp rel32 to `far_target`.
std::vector<uint8_t> code(uint8_t tail0, uint8_t tail1, uint64_t far_target) {
  const uint8_t a[] = {0xb8, 0, 0, 0, 0, 0x0f, 0x05, 0x48, 0x3d, 0x00, 0xf0, 0xff, 0xff, 0x77, 0x01, 0xc3, 0x31, 0xc0};
  std::vector<uint8_t> c(0x40, 0x90);
  std::memcpy(c.data(), a, sizeof a);
  c[0x12] = tail0;
  c[0x13] = tail1;
  c[0x14] = 0xc3;
  const int32_t rel = static_cast<int32_t>(far_target - (0x1020 + 5));
  c[0x20] = 0xe9;
  std::memcpy(c.data() + 0x21, &rel, sizeof rel);
  return c;
}

const SysbufSite kWide{0x1005, true, 0};

}  // namespace

TEST(SysbufJumps, ASiteNoBranchEntersIsKept) {
  const auto c = code(0x90, 0x90, 0x1000);
  EXPECT_TRUE(sites_jumped_into(c, kBase, kFunctions, std::span(&kWide, 1)).empty());
}

TEST(SysbufJumps, ANearJumpToTheCmpRefusesTheSite) {
  const auto c = code(0xeb, 0xf3, 0x1000);  // 0x1012: jmp 0x1007, the `cmp`
  EXPECT_EQ(sites_jumped_into(c, kBase, kFunctions, std::span(&kWide, 1)), std::set<uint64_t>{0x1005});
}

TEST(SysbufJumps, AFarJumpFromAnotherFunctionRefusesTheSite) {
  const auto c = code(0x90, 0x90, 0x1007);
  EXPECT_EQ(sites_jumped_into(c, kBase, kFunctions, std::span(&kWide, 1)), std::set<uint64_t>{0x1005});
}

TEST(SysbufJumps, AJumpPastANarrowSiteIsFine) {
  // The narrow shape is 7 bytes: 0x100c (the `ja`) follows it.
  const uint8_t a[] = {0xb8, 0, 0, 0, 0, 0x0f, 0x05, 0x3d, 0x00, 0xf0, 0xff, 0xff, 0x77, 0x01, 0xc3, 0xc3, 0xeb, 0xfa};
  std::vector<uint8_t> c(0x40, 0x90);
  std::memcpy(c.data(), a, sizeof a);
  const SysbufSite narrow{0x1005, false, 0};
  EXPECT_TRUE(sites_jumped_into(c, kBase, kFunctions, std::span(&narrow, 1)).empty());
  c[0x11] = 0xf9;  // now jmp 0x100b, the last byte of the `cmp`
  EXPECT_EQ(sites_jumped_into(c, kBase, kFunctions, std::span(&narrow, 1)), std::set<uint64_t>{0x1005});
}

TEST(SysbufJumps, ASiteOutsideEveryKnownFunctionIsRefused) {
  const auto c = code(0x90, 0x90, 0x1000);
  EXPECT_EQ(sites_jumped_into(c, kBase, std::vector<uint64_t>{0x1020}, std::span(&kWide, 1)),
            std::set<uint64_t>{0x1005});
  // A sweep that never lands on the site (the function starts mid-instruction).
  EXPECT_EQ(sites_jumped_into(c, kBase, std::vector<uint64_t>{0x1004, 0x1020}, std::span(&kWide, 1)),
            std::set<uint64_t>{0x1005});
}

TEST(SysbufJumps, EhFrameHdrTableGivesFunctionStarts) {
  const uint64_t hdr_addr = 0x5000;
  std::vector<uint8_t> hdr(12 + 16);
  const uint8_t head[] = {1, 0x1b, 0x03, 0x3b, 0, 0, 0, 0, 2, 0, 0, 0};
  const int32_t table[] = {-0x3fe0, 0x40, -0x4000, 0x80};  // (function, FDE) pairs, unsorted
  std::memcpy(hdr.data(), head, sizeof head);
  std::memcpy(hdr.data() + 12, table, sizeof table);
  Result<std::vector<uint64_t>> f = eh_frame_hdr_functions(hdr, hdr_addr);
  ASSERT_TRUE(f.ok()) << f.error().message;
  EXPECT_EQ(*f, (std::vector<uint64_t>{0x1000, 0x1020}));
  hdr[3] = 0x1b;  // a table encoding it does not take
  EXPECT_FALSE(eh_frame_hdr_functions(hdr, hdr_addr).ok());
  hdr[3] = 0x3b;
  hdr.resize(16);  // cut short
  EXPECT_FALSE(eh_frame_hdr_functions(hdr, hdr_addr).ok());
}

// This process's own libc: its .eh_frame_hdr is read, and none of the
// sites the buffer patches is refused (a parse that failed would refuse
// them all, silently costing every buffered call a stop).
TEST(SysbufJumps, TheRunningLibcIsCheckedAndItsSitesKept) {
  Result<std::vector<store::Mapping>> maps = process::read_maps(getpid());
  ASSERT_TRUE(maps.ok()) << maps.error().message;
  Result<SiteJumpCheck> check = SiteJumpCheck::load(getpid(), *maps);
  ASSERT_TRUE(check.ok()) << check.error().message;
  size_t found = 0;
  for (const store::Mapping& m : *maps) {
    if (m.path.find("/libc.so") == std::string::npos || !(m.prot & PROT_EXEC)) continue;
    const std::span<const uint8_t> code(reinterpret_cast<const uint8_t*>(m.start), m.end - m.start);
    const std::vector<SysbufSite> sites = find_sysbuf_sites(code, m.start, [](long nr) { return nr == 0 || nr == 1; });
    found += sites.size();
    EXPECT_TRUE(check->refused(sites).empty());
  }
  EXPECT_GE(found, 2u) << "no read or write site in libc";
}
