// Checks the lengths of VEX/EVEX instructions Debian's Capstone 4.0.2
// rejects (glibc's *_evex string functions run them on AVX-512 CPUs), and
// that the patch planner now takes a site over them: a function of this
// test binary holding them (decoded in memory through its .eh_frame_hdr,
// as in a tracee) is its own site at pc, and a rip-relative EVEX operand
// keeps its target when the trampoline moves it. Nothing here runs them,
// so the test passes on CPUs without AVX-512 too.
#include "engine/replay/vex_insn.h"

#include <gtest/gtest.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cstring>
#include <vector>

#include "engine/replay/patch_site.h"
#include "engine/replay/relay_site.h"

namespace slsdbg::replay {
namespace {

extern "C" uint8_t slsdbg_evex_pc[];
asm(R"(
  .text
  .globl slsdbg_evex_fn, slsdbg_evex_pc
  .type slsdbg_evex_fn, @function
slsdbg_evex_fn:
  .cfi_startproc
  mov $0xffffffff, %ecx
1:
slsdbg_evex_pc:
  kmovd %ecx, %k2
  vpcmpnequb (%rdi), %ymm17, %k1
  kmovd %k1, %eax
  test %eax, %eax
  jne 1b
  ret
  .cfi_endproc
  .size slsdbg_evex_fn, .-slsdbg_evex_fn
)");

struct Case {
  std::vector<uint8_t> bytes;
  uint8_t size, rip_disp_at;
};

TEST(VexInsn, LengthsOfWhatCapstoneRejects) {
  const Case cases[] = {
      {{0xc5, 0xfb, 0x92, 0xd1}, 4, 0},                                      // kmovd %ecx, %k2
      {{0x62, 0xf3, 0x75, 0x20, 0x3e, 0x0f, 0x04}, 7, 0},                    // vpcmpnequb (%rdi), %ymm17, %k1
      {{0x62, 0xf3, 0x75, 0x20, 0x3e, 0x0d, 0, 1, 0, 0, 0x04}, 11, 6},       // the same at 0x100(%rip)
      {{0x62, 0xf3, 0x75, 0x20, 0x3e, 0x4c, 0x47, 0x02, 0x04}, 9, 0},        // SIB and disp8
      {{0x62, 0xb2, 0x76, 0x20, 0x26, 0xc1}, 6, 0},                          // vptestnmb %ymm17, %ymm17, %k0
      {{0xc4, 0xe1, 0xf9, 0x98, 0xd1}, 5, 0},                                // kortestd %k1, %k2
      {{0x62, 0xf3, 0x6d, 0x48, 0x25, 0x5c, 0x24, 0x40, 0x96}, 9, 0},        // vpternlogd $0x96, 0x1000(%rsp) ...
      {{0xc5, 0xf8, 0x77}, 3, 0},                                            // vzeroupper
  };
  for (const Case& c : cases) {
    std::vector<uint8_t> code = c.bytes;
    code.resize(32, 0x90);  // what follows does not count
    const std::optional<VexInsn> v = decode_vex(code);
    ASSERT_TRUE(v.has_value()) << int(c.size);
    EXPECT_EQ(v->size, c.size);
    EXPECT_EQ(v->rip_disp_at, c.rip_disp_at);
  }
  // Not VEX, or cut short.
  EXPECT_FALSE(decode_vex(std::vector<uint8_t>{0x48, 0x89, 0xc3}).has_value());
  EXPECT_FALSE(decode_vex(std::vector<uint8_t>{0x62, 0xf3, 0x75, 0x20, 0x3e, 0x0f}).has_value());
  EXPECT_FALSE(decode_vex(std::vector<uint8_t>{0x66, 0xc5, 0xfb, 0x92, 0xd1}).has_value());
}

// Our own memory, through process_vm_readv: an unmapped part fails the read
// (module_base reads 64 pages at a time).
CodeReader own_memory() {
  return [](uint64_t addr, std::span<uint8_t> out) {
    iovec local{out.data(), out.size()};
    iovec remote{reinterpret_cast<void*>(addr), out.size()};
    return process_vm_readv(getpid(), &local, 1, &remote, 1, 0) == static_cast<ssize_t>(out.size());
  };
}

TEST(VexInsn, ThePlannerDecodesAFunctionOfThem) {
  const uint64_t pc = reinterpret_cast<uint64_t>(slsdbg_evex_pc);
  Result<DecodedFunction> d = decode_function(pc, own_memory());
  ASSERT_TRUE(d.ok()) << d.error().message;
  ASSERT_NE(d->at(pc), nullptr);
  EXPECT_EQ(d->at(pc)->size, 4);
  EXPECT_TRUE(d->at(pc + 4) && d->at(pc + 4)->plain);
  // A branch targets pc itself only: the jump goes at pc over kmovd and the
  // vpcmpnequb (4 + 7 bytes).
  Result<PatchSite> site = plan_checkpoint_site(pc, own_memory());
  ASSERT_TRUE(site.ok()) << site.error().message;
  EXPECT_EQ(site->anchor, pc);
  EXPECT_EQ(site->length, 11u);
  EXPECT_EQ(site->relay, 0u);
}

TEST(VexInsn, ARipRelativeOperandKeepsItsTargetWhenMoved) {
  std::vector<uint8_t> code = {0x62, 0xf3, 0x75, 0x20, 0x3e, 0x0d, 0, 1, 0, 0, 0x04};  // 0x100(%rip)
  code.resize(32, 0x90);
  const uint64_t pc = 0x400000, base = pc + 0x10000;
  Emitter e(base);
  Result<uint64_t> displaced = emit_displaced(code, pc, e);
  ASSERT_TRUE(displaced.ok()) << displaced.error().message;
  EXPECT_EQ(*displaced, 11u);
  ASSERT_GE(e.out.size(), 11u);
  int32_t disp = 0;
  std::memcpy(&disp, &e.out[6], 4);
  EXPECT_EQ(base + 11 + static_cast<int64_t>(disp), pc + 11 + 0x100);
  EXPECT_EQ(0, std::memcmp(e.out.data(), code.data(), 6));
  EXPECT_EQ(e.out[10], 0x04);
}

}  // namespace
}  // namespace slsdbg::replay
