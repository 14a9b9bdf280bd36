// Checks where a jump can watch a pc whose own bytes cannot move: the
// planner decodes a real function of this test binary (found through its
// .eh_frame_hdr in memory, as in a tracee) and picks the instruction before
// `pop rbp; ret` as the anchor; a counter stub at that anchor, run in this
// process, counts every arrival at `pop rbp` and keeps the results; a `ret`
// that begins its function, and a pc a branch can reach inside the moved
// bytes, are refused; a pc whose own 5 bytes a branch enters is watched from
// an anchor that ends before that branch's target.
#include "engine/replay/patch_site.h"

#include <gtest/gtest.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "engine/replay/code_pages_test.h"
#include "engine/replay/counting_patch.h"

extern "C" int slsdbg_anchored(int);  // push rbp; mov rbp, rsp; lea eax, [rdi + 1]; pop rbp; ret
extern "C" int slsdbg_bare_ret(int);  // ret
extern "C" int slsdbg_branch_in(int);  // a jl into the `pop rbp` before the ret
extern "C" int slsdbg_o0_loop(int);    // -O0's loop: `addl $1, i` before the condition the entry jumps to
extern "C" int slsdbg_call_through(int (*)(int), int);  // push rbx; mov rax, rdi; mov rdi, rsi; call *rax; add eax, 1
extern "C" uint8_t slsdbg_o0_loop_inc[];
asm(R"(
  .text
  .globl slsdbg_o0_loop, slsdbg_o0_loop_inc
  .type slsdbg_o0_loop, @function
slsdbg_o0_loop:
  .cfi_startproc
  push %rbp
  .cfi_def_cfa_offset 16
  mov %rsp, %rbp
  movl $0, -4(%rbp)
  jmp 2f
1: mov -4(%rbp), %eax
  mov %rax, -16(%rbp)
slsdbg_o0_loop_inc:
  addl $1, -4(%rbp)
2: cmpl $9, -4(%rbp)
  jle 1b
  mov -4(%rbp), %eax
  pop %rbp
  .cfi_def_cfa 7, 8
  ret
  .cfi_endproc
  .size slsdbg_o0_loop, .-slsdbg_o0_loop
)");
asm(R"(
  .text
  .globl slsdbg_anchored
  .type slsdbg_anchored, @function
slsdbg_anchored:
  .cfi_startproc
  push %rbp
  .cfi_def_cfa_offset 16
  mov %rsp, %rbp
  lea 1(%rdi), %eax
  pop %rbp
  .cfi_def_cfa 7, 8
  ret
  .cfi_endproc
  .size slsdbg_anchored, .-slsdbg_anchored
  .globl slsdbg_call_through
  .type slsdbg_call_through, @function
slsdbg_call_through:
  .cfi_startproc
  push %rbx
  .cfi_def_cfa_offset 16
  mov %rdi, %rax
  mov %rsi, %rdi
  call *%rax
  add $1, %eax
  pop %rbx
  .cfi_def_cfa_offset 8
  ret
  .cfi_endproc
  .size slsdbg_call_through, .-slsdbg_call_through
  .globl slsdbg_bare_ret
  .type slsdbg_bare_ret, @function
slsdbg_bare_ret:
  .cfi_startproc
  ret
  .cfi_endproc
  .size slsdbg_bare_ret, .-slsdbg_bare_ret
  .globl slsdbg_branch_in
  .type slsdbg_branch_in, @function
slsdbg_branch_in:
  .cfi_startproc
  push %rbp
  .cfi_def_cfa_offset 16
  mov %rsp, %rbp
  mov %edi, %eax
  cmp $5, %edi
  jl 1f
  lea 1(%rdi), %eax
1:
  pop %rbp
  .cfi_def_cfa 7, 8
  ret
  .cfi_endproc
  .size slsdbg_branch_in, .-slsdbg_branch_in
)");

namespace slsdbg::replay {
namespace {

// This process's own memory, as the Timeline reads a tracee's.
bool read_self(uint64_t addr, std::span<uint8_t> out) {
  iovec local{out.data(), out.size()};
  iovec remote{reinterpret_cast<void*>(addr), out.size()};
  return process_vm_readv(getpid(), &local, 1, &remote, 1, 0) == static_cast<ssize_t>(out.size());
}

uint64_t addr_of(int (*f)(int)) { return reinterpret_cast<uint64_t>(f); }

TEST(PatchSite, APcThatCanMoveIsItsOwnSite) {
  const uint64_t lea = addr_of(slsdbg_anchored) + 4;
  auto site = plan_patch_site(lea, read_self);
  ASSERT_TRUE(site.ok()) << site.error().message;
  EXPECT_EQ(lea, site->anchor);
  EXPECT_FALSE(site->anchored());
}

TEST(PatchSite, PopRbpRetIsWatchedFromTheInstructionBefore) {
  const uint64_t f = addr_of(slsdbg_anchored);
  for (uint64_t pc : {f + 7, f + 8}) {  // pop rbp, ret
    auto site = plan_patch_site(pc, read_self);
    ASSERT_TRUE(site.ok()) << site.error().message;
    EXPECT_EQ(f + 4, site->anchor);  // lea eax, [rdi + 1]
    EXPECT_EQ(pc, site->pc);
    EXPECT_EQ(5u, site->length);
  }
}

TEST(PatchSite, RefusesWhatNoAnchorCanWatch) {
  EXPECT_FALSE(plan_patch_site(addr_of(slsdbg_bare_ret), read_self).ok());
  // pop rbp is a branch target: the lea before it is no anchor.
  const uint64_t f = addr_of(slsdbg_branch_in);
  uint8_t code[32];
  ASSERT_TRUE(read_self(f, code));
  const uint64_t pop = f + (std::find(code, code + 32, 0x5d) - code);
  ASSERT_EQ(0xc3, code[pop - f + 1]);
  auto site = plan_patch_site(pop, read_self);
  EXPECT_FALSE(site.ok());
}

TEST(PatchSite, ABranchIntoPcsFiveBytesMovesTheJumpToAnAnchor) {
  ASSERT_EQ(10, slsdbg_o0_loop(0));
  const uint64_t pc = reinterpret_cast<uint64_t>(slsdbg_o0_loop_inc);
  auto site = plan_patch_site(pc, read_self);
  ASSERT_TRUE(site.ok()) << site.error().message;
  // Not at pc: its 5 bytes would cover the `cmpl` the loop's entry jumps to.
  EXPECT_EQ(pc - 4, site->anchor);  // mov %rax, -16(%rbp)
  EXPECT_EQ(pc + 4, site->end());   // up to that cmpl
}

TEST(PatchSite, AnchoredCounterCountsEveryArrival) {
  // A copy of slsdbg_anchored in a writable page, the stub in the next one.
  testing::CodePages pages;
  ASSERT_TRUE(pages.ok());
  uint8_t* code = pages.code();
  const uint64_t pc = pages.base(), page = pages.stub();
  ASSERT_TRUE(read_self(addr_of(slsdbg_anchored), {code, 9}));
  const PatchSite site{pc + 4, pc + 7, 5};
  std::vector<uint8_t> moved(code + 4, code + 9);
  moved.resize(32, 0x90);
  auto stub = build_counter_stub(moved, site, page);
  ASSERT_TRUE(stub.ok()) << stub.error().message;
  pages.place_stub(stub->bytes);
  pages.jump_to_stub(4);
  auto fn = reinterpret_cast<int (*)(int)>(pc);
  for (int i = 0; i < 1000; i++) ASSERT_EQ(i + 1, fn(i));
  EXPECT_EQ(1000u, pages.stub_word(kCounterCountOffset));
}

int add_ten(int x) { return x + 10; }

TEST(PatchSite, AnIndirectCallEndingTheMovedBytesRunsFromTheStub) {
  // A copy of slsdbg_call_through; pc is `mov %rsi, %rdi`, so the 5 moved
  // bytes end with `call *%rax`, which the stub makes push the original
  // return address and `jmp *%rax`.
  testing::CodePages pages;
  ASSERT_TRUE(pages.ok());
  uint8_t* code = pages.code();
  const uint64_t fn_at = pages.base(), page = pages.stub();
  ASSERT_TRUE(read_self(reinterpret_cast<uint64_t>(slsdbg_call_through), {code, 14}));
  ASSERT_EQ(0xff, code[7]);  // call *%rax
  ASSERT_EQ(0xd0, code[8]);
  const uint64_t pc = fn_at + 4;
  auto site = plan_patch_site(pc, read_self);
  ASSERT_TRUE(site.ok()) << site.error().message;
  EXPECT_EQ(pc, site->anchor);
  EXPECT_EQ(5u, site->length);
  std::vector<uint8_t> moved(code + 4, code + 9);
  moved.resize(32, 0x90);
  auto stub = build_counter_stub(moved, *site, page);
  ASSERT_TRUE(stub.ok()) << stub.error().message;
  pages.place_stub(stub->bytes);
  pages.jump_to_stub(4);
  auto fn = reinterpret_cast<int (*)(int (*)(int), int)>(fn_at);
  for (int i = 0; i < 100; i++) ASSERT_EQ(i + 11, fn(add_ten, i));
  EXPECT_EQ(100u, pages.stub_word(kCounterCountOffset));
}

TEST(PatchSite, AnIndirectCallBeforeTheEndOfTheMovedBytesIsRefused) {
  // At the call itself, the add after it would be moved too: the callee
  // would return into the jump's bytes.
  const uint64_t call = reinterpret_cast<uint64_t>(slsdbg_call_through) + 7;
  std::vector<uint8_t> code(32);
  ASSERT_TRUE(read_self(call, code));
  Emitter e(call + kTrampPage);
  auto moved = emit_displaced(code, call, e);
  ASSERT_FALSE(moved.ok());
  EXPECT_NE(std::string::npos, moved.error().message.find("before the end of the moved bytes"));
}

TEST(PatchSite, ADirectCallBeforeTheEndOfTheMovedBytesIsRefused) {
  // No planner makes such a site (a 5-byte call always ends the 5 moved
  // bytes), but a site given whole must not move `call rel32; nop` as if
  // the callee returned after it.
  const uint64_t at = 0x400000;
  std::vector<uint8_t> code = {0xe8, 0x10, 0, 0, 0, 0x90};  // call .+0x15; nop
  code.resize(32, 0x90);
  Emitter e(at + kTrampPage);
  Status moved = emit_from_pc(code, PatchSite::at(at, 6), e);
  ASSERT_FALSE(moved.ok());
  EXPECT_NE(std::string::npos, moved.error().message.find("before the end of the moved bytes"));
  Emitter ok(at + kTrampPage);
  EXPECT_TRUE(emit_from_pc(code, PatchSite::at(at, 5), ok).ok());
}

}  // namespace
}  // namespace slsdbg::replay
