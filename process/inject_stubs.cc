// Machine code of the stubs in the injection page, assembled by the compiler
// into .rodata and copied into the tracee by install_injection_page().
#include <cstdint>

#include "process/inject.h"

// rt_sigaction for every signal, old actions to the scratch page (32 bytes
// each: handler, flags, restorer, mask: the kernel's x86-64 layout); then
// brk(0), whose result is left in rax.
asm(R"(
  .pushsection .rodata
  .globl slsdbg_stub_sigactions_begin
  .globl slsdbg_stub_sigactions_end
slsdbg_stub_sigactions_begin:
  movl $1, %ebx
  movl $0x70001000, %r12d
1:
  movl $13, %eax
  movl %ebx, %edi
  xorl %esi, %esi
  movq %r12, %rdx
  movl $8, %r10d
  syscall
  addq $32, %r12
  incl %ebx
  cmpl $65, %ebx
  jne 1b
  movl $12, %eax
  xorl %edi, %edi
  syscall
  int3
slsdbg_stub_sigactions_end:
  .popsection
)");

// Page copy: header at kStagingAddr = {count, addr[count]}; copies each 4 KiB
// page at addr[i] to kStagingDataAddr + i*4096 (rep movsb), then int3.
asm(R"(
  .pushsection .rodata
  .globl slsdbg_stub_copy_begin
  .globl slsdbg_stub_copy_end
slsdbg_stub_copy_begin:
  movl $0x70100000, %ebx
  movq (%rbx), %r8
  leaq 8(%rbx), %r9
  movl $0x70120000, %edi
  cld
1:
  testq %r8, %r8
  jz 2f
  movq (%r9), %rsi
  movl $4096, %ecx
  rep movsb
  addq $8, %r9
  decq %r8
  jmp 1b
2:
  int3
slsdbg_stub_copy_end:
  .popsection
)");

// A batch of syscalls: rbx points at a table of 64-byte entries {nr, a0..a5,
// result}, r12 holds their count; each runs in turn and its result goes to
// the entry; the first that fails (-4095..-1) ends the batch. Then int3.
asm(R"(
  .pushsection .rodata
  .globl slsdbg_stub_batch_begin
  .globl slsdbg_stub_batch_end
slsdbg_stub_batch_begin:
1:
  testq %r12, %r12
  jz 2f
  movq (%rbx), %rax
  movq 8(%rbx), %rdi
  movq 16(%rbx), %rsi
  movq 24(%rbx), %rdx
  movq 32(%rbx), %r10
  movq 40(%rbx), %r8
  movq 48(%rbx), %r9
  syscall
  movq %rax, 56(%rbx)
  cmpq $-4095, %rax
  jae 2f
  addq $64, %rbx
  decq %r12
  jmp 1b
2:
  int3
slsdbg_stub_batch_end:
  .popsection
)");

extern "C" const uint8_t slsdbg_stub_batch_begin[];
extern "C" const uint8_t slsdbg_stub_batch_end[];
extern "C" const uint8_t slsdbg_stub_copy_begin[];
extern "C" const uint8_t slsdbg_stub_copy_end[];
extern "C" const uint8_t slsdbg_stub_sigactions_begin[];
extern "C" const uint8_t slsdbg_stub_sigactions_end[];

namespace slsdbg::process {

static_assert(kInjectScratchAddr == 0x70001000, "the sigaction stub hard-codes the scratch address");

static_assert(kStagingAddr == 0x70100000 && kStagingDataAddr == 0x70120000, "the copy stub hard-codes the staging layout");

InjectedStub page_copy_stub() {
  return InjectedStub{256, std::span<const uint8_t>(slsdbg_stub_copy_begin, slsdbg_stub_copy_end - slsdbg_stub_copy_begin)};
}

InjectedStub syscall_batch_stub() {
  return InjectedStub{512, std::span<const uint8_t>(slsdbg_stub_batch_begin, slsdbg_stub_batch_end - slsdbg_stub_batch_begin)};
}

InjectedStub sigaction_dump_stub() {
  return InjectedStub{16, std::span<const uint8_t>(slsdbg_stub_sigactions_begin,
                                                   slsdbg_stub_sigactions_end - slsdbg_stub_sigactions_begin)};
}

}  // namespace slsdbg::process
