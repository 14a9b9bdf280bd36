// Checks that a function with a switch's jump table still gives anchored
// patch sites (patch_site.h): the table's entries, read from this process's
// memory as from a tracee's, are the only targets of its indirect jump. An
// anchor is refused where an entry targets the bytes it would move, and a
// function whose indirect jump is no table (a tail call) keeps refusing.
#include "engine/replay/jump_table.h"

#include <gtest/gtest.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>

#include "engine/replay/patch_site.h"

extern "C" int slsdbg_switch(int);     // a table of 4 cases, then `add $1, eax; pop rbp; ret`
extern "C" int slsdbg_switch_in(int);  // the same, case 3 jumping to that `pop rbp`
extern "C" int slsdbg_tail_jump(int);  // `jmp *rax` to slsdbg_switch, and `add; pop rbp; ret`
extern "C" uint8_t slsdbg_switch_pop[], slsdbg_switch_in_pop[], slsdbg_tail_jump_pop[];
asm(R"(
  .text
  .globl slsdbg_switch, slsdbg_switch_pop
  .type slsdbg_switch, @function
slsdbg_switch:
  .cfi_startproc
  push %rbp
  .cfi_def_cfa_offset 16
  mov %rsp, %rbp
  cmp $3, %edi
  ja 9f
  mov %edi, %edi
  lea 5f(%rip), %rdx
  movslq (%rdx,%rdi,4), %rax
  add %rdx, %rax
  jmp *%rax
1: lea 10(%rdi), %eax
  jmp 8f
2: lea 20(%rdi), %eax
  jmp 8f
3: lea 30(%rdi), %eax
  jmp 8f
4: lea 40(%rdi), %eax
  jmp 8f
9: xor %eax, %eax
8: add $1, %eax
slsdbg_switch_pop:
  pop %rbp
  .cfi_def_cfa 7, 8
  ret
  .cfi_endproc
  .size slsdbg_switch, .-slsdbg_switch
  .section .rodata
  .p2align 2
5: .long 1b-5b, 2b-5b, 3b-5b, 4b-5b
  .text

  .globl slsdbg_switch_in, slsdbg_switch_in_pop
  .type slsdbg_switch_in, @function
slsdbg_switch_in:
  .cfi_startproc
  push %rbp
  .cfi_def_cfa_offset 16
  mov %rsp, %rbp
  cmp $3, %edi
  ja 9f
  mov %edi, %edi
  lea 5f(%rip), %rdx
  movslq (%rdx,%rdi,4), %rax
  add %rdx, %rax
  jmp *%rax
1: lea 10(%rdi), %eax
  jmp 8f
2: lea 20(%rdi), %eax
  jmp 8f
3: lea 30(%rdi), %eax
  jmp 8f
9: xor %eax, %eax
8: add $1, %eax
slsdbg_switch_in_pop:
  pop %rbp
  .cfi_def_cfa 7, 8
  ret
  .cfi_endproc
  .size slsdbg_switch_in, .-slsdbg_switch_in
  .section .rodata
  .p2align 2
5: .long 1b-5b, 2b-5b, 3b-5b, slsdbg_switch_in_pop-5b
  .text

  .globl slsdbg_tail_jump, slsdbg_tail_jump_pop
  .type slsdbg_tail_jump, @function
slsdbg_tail_jump:
  .cfi_startproc
  push %rbp
  .cfi_def_cfa_offset 16
  mov %rsp, %rbp
  test %edi, %edi
  jne 1f
  mov %edi, %eax
  add $1, %eax
slsdbg_tail_jump_pop:
  pop %rbp
  .cfi_def_cfa 7, 8
  ret
1: .cfi_def_cfa 6, 16
  pop %rbp
  .cfi_def_cfa 7, 8
  lea slsdbg_switch(%rip), %rax
  jmp *%rax
  .cfi_endproc
  .size slsdbg_tail_jump, .-slsdbg_tail_jump
)");

namespace slsdbg::replay {
namespace {

bool read_self(uint64_t addr, std::span<uint8_t> out) {
  iovec local{out.data(), out.size()};
  iovec remote{reinterpret_cast<void*>(addr), out.size()};
  return process_vm_readv(getpid(), &local, 1, &remote, 1, 0) == static_cast<ssize_t>(out.size());
}

uint64_t addr_of(const void* p) { return reinterpret_cast<uint64_t>(p); }

TEST(JumpTable, TheTableEntriesAreTheIndirectJumpsTargets) {
  ASSERT_EQ(22, slsdbg_switch(1));  // case 1: lea 20(%rdi), then add $1
  ASSERT_EQ(1, slsdbg_switch(7));
  auto d = decode_function(addr_of(slsdbg_switch_pop), read_self);
  ASSERT_TRUE(d.ok()) << d.error().message;
  EXPECT_FALSE(d->indirect_jump);
  EXPECT_EQ(1, d->jump_tables);
  // The four cases: each a `lea` right after the indirect jump's `jmp`s.
  int leas = 0;
  for (const auto& i : d->insns) {
    uint8_t b[4];
    ASSERT_TRUE(read_self(i.at, b));
    if (b[0] == 0x8d && d->targets.count(i.at)) leas++;
  }
  EXPECT_EQ(4, leas);
}

TEST(JumpTable, PopRbpAfterASwitchIsWatchedFromTheAddBefore) {
  const uint64_t pop = addr_of(slsdbg_switch_pop);
  auto site = plan_patch_site(pop, read_self);
  ASSERT_TRUE(site.ok()) << site.error().message;
  EXPECT_EQ(pop - 3, site->anchor);  // add $1, eax (a target itself: fine)
  EXPECT_EQ(pop, site->pc);
  EXPECT_EQ(5u, site->length);
}

TEST(JumpTable, AnEntryIntoTheMovedBytesIsRefused) {
  auto site = plan_patch_site(addr_of(slsdbg_switch_in_pop), read_self);
  ASSERT_FALSE(site.ok());
  EXPECT_NE(std::string::npos, site.error().message.find("a branch targets")) << site.error().message;
}

TEST(JumpTable, AnIndirectJumpThatIsNoTableStillRefusesAnchors) {
  ASSERT_EQ(1, slsdbg_tail_jump(0));
  auto site = plan_patch_site(addr_of(slsdbg_tail_jump_pop), read_self);
  ASSERT_FALSE(site.ok());
  EXPECT_NE(std::string::npos, site.error().message.find("indirect jump")) << site.error().message;
}

}  // namespace
}  // namespace slsdbg::replay
