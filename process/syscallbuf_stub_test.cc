// The stub's version follows its code: a recording stores the version, and
// replay of another version is refused (engine/replay/sysbuf_version.h). A
// change to the stub that forgets to bump kSysbufStubVersion fails here.
#include <gtest/gtest.h>

#include <cstdint>

#include "process/syscallbuf_stub.h"

using namespace slsdbg::process;

namespace {

uint64_t fnv1a(std::span<const uint8_t> bytes) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (uint8_t b : bytes) h = (h ^ b) * 0x100000001b3ull;
  return h;
}

}  // namespace

TEST(SysbufStub, VersionPinsTheCode) {
  // One row per version: bump the version and replace the row together.
  constexpr uint32_t kVersion = 3;
  constexpr uint64_t kCodeHash = 0x64ed214812cfbe62ull;
  EXPECT_EQ(kSysbufStubVersion, kVersion);
  EXPECT_EQ(fnv1a(sysbuf_stub_code()), kCodeHash)
      << "the syscall buffer stub changed: bump kSysbufStubVersion and put the new hash here";
}

TEST(SysbufStub, LayoutLiesInsideTheStubPage) {
  const SysbufStubLayout l = sysbuf_stub_layout();
  EXPECT_EQ(l.code_begin, kSysbufStubAddr + 16);
  EXPECT_LE(l.code_end, kSysbufStubAddr + 4096);
  for (uint64_t pc : {l.fast, l.slow, l.movs, l.ret_wide, l.ret_narrow}) {
    EXPECT_GE(pc, l.code_begin);
    EXPECT_LT(pc, l.code_end);
  }
  // The recorder runs a stopped tracee out of the stub to these (hardware
  // breakpoints): each must be the `ret` itself.
  const std::span<const uint8_t> code = sysbuf_stub_code();
  EXPECT_EQ(code[l.ret_wide - kSysbufStubAddr], 0xc3);
  EXPECT_EQ(code[l.ret_narrow - kSysbufStubAddr], 0xc3);
}
