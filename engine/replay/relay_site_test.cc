// Checks the relayed patch site (relay_site.h) on real functions of this
// test binary, read as from a tracee: a pc whose 5-byte jump would cover a
// loop's branch target gets a 2-byte jump to the 5 bytes of padding after
// the function's `ret`; without padding in reach it keeps the plain site.
// The threaded replay's jump stays inside pc's own instruction where it can:
// relayed for a 2-4 byte one, in place for a longer one, also in code no
// .eh_frame covers (int3 padding only there, after pc or, at an aligned
// function start, before it), never for a 1-byte one.
#include "engine/replay/relay_site.h"

#include <gtest/gtest.h>
#include <sys/uio.h>
#include <unistd.h>

#include "engine/replay/patch_site.h"

// Go's `-N -l` loop shape without CFI: a 2-byte `jmp` to the next
// instruction, 3 int3s after the function, code beyond; 31 int3s before it
// (the previous function's padding up to the 32-byte aligned start).
extern "C" uint8_t slsdbg_back[], slsdbg_back_jmp[], slsdbg_back_jnz[];
asm(R"(
  .text
  .p2align 5
slsdbg_back_prev:
  ret
  .p2align 5, 0xcc
  .globl slsdbg_back, slsdbg_back_jmp, slsdbg_back_jnz
slsdbg_back:
  xor %eax, %eax
1: add %rdi, %rax
slsdbg_back_jmp:
  jmp 2f
2: dec %rdi
slsdbg_back_jnz:
  jnz 1b
  ret
  .fill 3, 1, 0xcc
  .rept 60
  mov %rax, %rdx
  .endr
  ret
)");

extern "C" int slsdbg_relay(long);      // a loop whose inner branch targets pc + 4
extern "C" uint8_t slsdbg_relay_pc[], slsdbg_relay_pad[];
asm(R"(
  .text
  .globl slsdbg_relay, slsdbg_relay_pc, slsdbg_relay_pad
  .type slsdbg_relay, @function
slsdbg_relay:
  .cfi_startproc
  xor %eax, %eax
  mov %rdi, %rcx
slsdbg_relay_pc:
1: add $1, %rcx
2: add $1, %eax
  cmp $10, %eax
  jl 1b
  cmp $20, %eax
  jl 2b
  ret
slsdbg_relay_pad:
  .byte 0x0f, 0x1f, 0x44, 0x00, 0x00, 0x90, 0x90, 0x90
  ret
  .cfi_endproc
  .size slsdbg_relay, .-slsdbg_relay
)");

// Go-like code without CFI: 3-byte instructions, a 7-byte compare, a 1-byte
// cld; int3 padding after the first function, nops after the second.
extern "C" uint8_t slsdbg_nocfi_add[], slsdbg_nocfi_cmp[], slsdbg_nocfi_cld[], slsdbg_nocfi_pad[];
extern "C" uint8_t slsdbg_nocfi_nop_add[];
asm(R"(
  .text
slsdbg_nocfi:
  xor %ecx, %ecx
  xor %eax, %eax
1:
  .globl slsdbg_nocfi_add, slsdbg_nocfi_cmp, slsdbg_nocfi_cld, slsdbg_nocfi_pad, slsdbg_nocfi_nop_add
slsdbg_nocfi_add:
  add %rcx, %rax
  inc %rcx
slsdbg_nocfi_cmp:
  cmp $1000, %rcx
  jl 1b
slsdbg_nocfi_cld:
  cld
  xor %edx, %edx
  xor %esi, %esi
  ret
slsdbg_nocfi_pad:
  .fill 8, 1, 0xcc
slsdbg_nocfi_nop:
  xor %eax, %eax
slsdbg_nocfi_nop_add:
  add %rcx, %rax
  inc %rcx
  ret
  .fill 8, 1, 0x90
)");

namespace slsdbg::replay {
namespace {

bool read_self(uint64_t addr, std::span<uint8_t> out) {
  iovec local{out.data(), out.size()};
  iovec remote{reinterpret_cast<void*>(addr), out.size()};
  return process_vm_readv(getpid(), &local, 1, &remote, 1, 0) == static_cast<ssize_t>(out.size());
}

TEST(RelaySite, ABranchIntoThe5BytesGivesAShortJumpToPadding) {
  ASSERT_EQ(20, slsdbg_relay(0));
  const uint64_t pc = reinterpret_cast<uint64_t>(slsdbg_relay_pc);
  // patch_site.h: the jump would cover `add rcx` and the branch target
  // `add eax`, and there is no anchor: no plain site.
  auto plain = plan_patch_site(pc, read_self);
  ASSERT_FALSE(plain.ok());
  EXPECT_NE(std::string::npos, plain.error().message.find("a branch targets the bytes after"));
  auto site = plan_checkpoint_site(pc, read_self);
  ASSERT_TRUE(site.ok()) << site.error().message;
  EXPECT_EQ(pc, site->anchor);
  EXPECT_EQ(4u, site->length);  // add $1, %rcx only: the branch target after it stays
  EXPECT_EQ(reinterpret_cast<uint64_t>(slsdbg_relay_pad), site->relay);
}

TEST(RelaySite, AShortInstructionIsRelayedEvenWithoutABranchIntoTheBytes) {
  const uint64_t after = reinterpret_cast<uint64_t>(slsdbg_relay_pc) + 7;  // cmp $10, %eax; jl
  auto plain = plan_patch_site(after, read_self);  // cmp (3 bytes) + jl (2)
  ASSERT_TRUE(plain.ok()) << plain.error().message;
  EXPECT_EQ(5u, plain->length);
  auto site = plan_one_instruction_site(after, read_self);
  ASSERT_TRUE(site.ok()) << site.error().message;
  EXPECT_EQ(3u, site->length);  // a thread resuming at the jl never meets the jump's bytes
  EXPECT_EQ(reinterpret_cast<uint64_t>(slsdbg_relay_pad), site->relay);
}

TEST(RelaySite, WithoutCfiAShortInstructionIsRelayedToInt3Padding) {
  const uint64_t pc = reinterpret_cast<uint64_t>(slsdbg_nocfi_add);
  auto site = plan_one_instruction_site(pc, read_self);
  ASSERT_TRUE(site.ok()) << site.error().message;
  EXPECT_EQ(pc, site->anchor);
  EXPECT_EQ(3u, site->length);
  EXPECT_EQ(reinterpret_cast<uint64_t>(slsdbg_nocfi_pad), site->relay);
}

TEST(RelaySite, ALongInstructionTakesTheJumpInPlace) {
  const uint64_t pc = reinterpret_cast<uint64_t>(slsdbg_nocfi_cmp);
  auto site = plan_one_instruction_site(pc, read_self);
  ASSERT_TRUE(site.ok()) << site.error().message;
  EXPECT_EQ(7u, site->length);  // cmp $1000, %rcx alone
  EXPECT_EQ(0u, site->relay);
}

TEST(RelaySite, AOneByteInstructionKeepsThePlainSite) {
  const uint64_t pc = reinterpret_cast<uint64_t>(slsdbg_nocfi_cld);
  EXPECT_FALSE(plan_one_instruction_site(pc, read_self).ok());
  auto site = plan_checkpoint_site(pc, read_self);
  ASSERT_TRUE(site.ok()) << site.error().message;
  EXPECT_EQ(0u, site->relay);
  EXPECT_EQ(5u, site->length);  // cld and the two xors
}

TEST(RelaySite, WithoutCfiNopsAreNoPadding) {
  // Seen from pc on only, a nop may be some earlier branch's target.
  const uint64_t pc = reinterpret_cast<uint64_t>(slsdbg_nocfi_nop_add);
  // (The int3s before slsdbg_nocfi_nop may serve, where it lies aligned.)
  auto one = plan_one_instruction_site(pc, read_self);
  if (one.ok()) {
    EXPECT_LT(one->relay, pc);
  }
  auto site = plan_checkpoint_site(pc, read_self);
  ASSERT_TRUE(site.ok()) << site.error().message;
  EXPECT_EQ(0u, site->relay);
  EXPECT_EQ(6u, site->length);  // add, inc
}

TEST(RelaySite, WithoutCfiAndNoPaddingAfterTheRelayGoesToPaddingBefore) {
  // Seen from the function's aligned start, right after 31 int3s.
  const uint64_t start = reinterpret_cast<uint64_t>(slsdbg_back);
  for (uint8_t* pc : {slsdbg_back_jmp, slsdbg_back_jnz}) {
    const uint64_t at = reinterpret_cast<uint64_t>(pc);
    auto one = plan_one_instruction_site(at, read_self);
    ASSERT_TRUE(one.ok()) << one.error().message;
    EXPECT_EQ(at, one->anchor);
    EXPECT_EQ(2u, one->length);
    EXPECT_EQ(start - kJmpLen, one->relay);
    // The session's planner too: a jump at pc has no own site there.
    auto site = plan_checkpoint_site(at, read_self);
    ASSERT_TRUE(site.ok()) << site.error().message;
    EXPECT_EQ(start - kJmpLen, site->relay);
  }
}

}  // namespace
}  // namespace slsdbg::replay
