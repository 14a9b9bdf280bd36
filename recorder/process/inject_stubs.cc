// Machine code of the stubs in the injection page, assembled by the compiler
// into .rodata and copied into the tracee by install_injection_page().
#include <cstdint>

#include "recorder/process/inject.h"

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

extern "C" const uint8_t slsdbg_stub_sigactions_begin[];
extern "C" const uint8_t slsdbg_stub_sigactions_end[];

namespace slsdbg::process {

static_assert(kInjectScratchAddr == 0x70001000, "the sigaction stub hard-codes the scratch address");

InjectedStub sigaction_dump_stub() {
  return InjectedStub{16, std::span<const uint8_t>(slsdbg_stub_sigactions_begin,
                                                   slsdbg_stub_sigactions_end - slsdbg_stub_sigactions_begin)};
}

}  // namespace slsdbg::process
