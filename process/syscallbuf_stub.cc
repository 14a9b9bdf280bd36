// Machine code of the syscall-buffer stub (syscallbuf_stub.h), assembled by
// the compiler into .rodata and copied to kSysbufStubAddr by
// install_injection_page() in record and replay alike.
//
// A patched glibc site calls it with `call *ptr` (ptr at the page's start,
// one per site shape). It returns with the registers, flags and rip the
// original `syscall; cmp $-4096, %rax|%eax` would have left: rax the result,
// rcx the address after the original `syscall`, r11 the flags at it.
// Only the return address slot (8 bytes below the caller's rsp) is written
// on the caller's stack; the rest of the red zone is skipped.
//
// The stub never reads the program's memory before the syscall (a path is
// the kernel's to check: a bad pointer gets EFAULT as it would natively),
// and after it only the bytes the kernel wrote (a short count copies
// less). newfstatat/statx with AT_EMPTY_PATH need the fd's table entry;
// without it they resolve a path and run whatever the path.
//
// Fast path (recording with the buffer enabled, a call and fd the header's
// table allows, room left; syscallbuf.h lists the calls and conditions): the entry {nr, args[6], result, out_addr,
// out_len, out bytes padded to 8} is appended at kSysbufEntriesAddr +
// cursor, the syscall runs from `fast` (the one address the recorder's
// seccomp filter allows), the kernel's output bytes are copied after it and
// the cursor advanced. Otherwise the original registers are restored and the
// syscall runs from `slow`, trapped like any other: always so in replay,
// where the header is zero. Both paths push the same values, so the stack
// below the caller is the same whichever path ran.
//
// The vDSO's clock reads call it too (process/vdso_patch.h, the narrow
// entry): clock_gettime and clock_getres (16 bytes at rsi), gettimeofday
// with a null timezone (16 bytes at rdi) and time (8 bytes at rdi when not
// null) take the fast path on no fd.
#include <cstdint>

#include "process/syscallbuf_stub.h"

asm(R"(
  .pushsection .rodata
  .globl slsdbg_sysbuf_begin
  .globl slsdbg_sysbuf_end
  .globl slsdbg_sysbuf_fast
  .globl slsdbg_sysbuf_slow
  .globl slsdbg_sysbuf_movs
  .globl slsdbg_sysbuf_code
  .globl slsdbg_sysbuf_ret_wide
  .globl slsdbg_sysbuf_ret_narrow
  .set SB_PAGE, 0x70002000
  .set SB_CURSOR, 0x70003000
  .set SB_BUSY, 0x70003008
  .set SB_ENABLED, 0x70003010
  .set SB_TABLE, 0x70003040
  .set SB_ENTRIES, 0x70004000
  .set SB_ENTRIES_SIZE, 0xfc000
  .set SB_MAXREAD, 0x40000
slsdbg_sysbuf_begin:
  .quad SB_PAGE + (1f - slsdbg_sysbuf_begin)
  .quad SB_PAGE + (2f - slsdbg_sysbuf_begin)
slsdbg_sysbuf_code:
1:
  leaq -120(%rsp), %rsp
  pushq $1
  pushfq
  addq $1, 136(%rsp)
  jmp 3f
2:
  leaq -120(%rsp), %rsp
  pushq $0
  pushfq
3:
  pushq %rbx
  pushq %rcx
  pushq %r11
  pushq %rdi
  pushq %rsi
  cld
  cmpq $0, SB_ENABLED
  je 90f
  cmpq $0, SB_BUSY
  jne 90f
  movq $1, SB_BUSY
  xorl %ecx, %ecx
  cmpq $1024, %rdi
  jae 5f
  movzbl SB_TABLE(%rdi), %ecx
5:
  cmpq $0, %rax
  je 10f
  cmpq $17, %rax
  je 10f
  cmpq $1, %rax
  je 11f
  cmpq $18, %rax
  je 11f
  cmpq $8, %rax
  je 12f
  cmpq $262, %rax
  je 13f
  cmpq $217, %rax
  je 15f
  cmpq $257, %rax
  je 16f
  cmpq $3, %rax
  je 17f
  cmpq $332, %rax
  je 14f
  cmpq $7, %rax
  je 18f
  cmpq $72, %rax
  je 25f
  cmpq $228, %rax
  je 40f
  cmpq $229, %rax
  je 40f
  cmpq $96, %rax
  je 41f
  cmpq $201, %rax
  je 42f
  jmp 89f
40:
  movl $16, %r11d
  jmp 20f
41:
  testq %rsi, %rsi
  jnz 89f
  movl $16, %r11d
  jmp 20f
42:
  movl $8, %r11d
  jmp 20f
10:
  testl $1, %ecx
  jz 89f
  cmpq $SB_MAXREAD, %rdx
  ja 89f
  movq %rdx, %r11
  jmp 20f
11:
  testl $2, %ecx
  jz 89f
  xorl %r11d, %r11d
  jmp 20f
12:
  testl $7, %ecx
  jz 89f
  xorl %r11d, %r11d
  jmp 20f
13:
  testl $0x1000, %r10d
  jz 19f
  testl $7, %ecx
  jz 89f
19:
  movl $144, %r11d
  jmp 20f
14:
  testl $0x1000, %edx
  jz 24f
  testl $7, %ecx
  jz 89f
24:
  movl $256, %r11d
  jmp 20f
15:
  testl $4, %ecx
  jz 89f
  cmpq $SB_MAXREAD, %rdx
  ja 89f
  movq %rdx, %r11
  jmp 20f
16:
  testl $0x210800, %edx
  jz 89f
  xorl %r11d, %r11d
  jmp 20f
17:
  testl $7, %ecx
  jz 89f
  movb $0, SB_TABLE(%rdi)
  xorl %r11d, %r11d
  jmp 20f
25:
  cmpl $3, %esi
  jbe 26f
  cmpl $1030, %esi
  jne 89f
26:
  xorl %r11d, %r11d
  jmp 20f
18:
  testl %edx, %edx
  jnz 89f
  cmpq $64, %rsi
  ja 89f
  leaq (,%rsi,8), %r11
20:
  leaq 87(%r11), %rcx
  andq $-8, %rcx
  movq SB_CURSOR, %r11
  addq %r11, %rcx
  cmpq $SB_ENTRIES_SIZE, %rcx
  ja 89f
  leaq SB_ENTRIES(%r11), %rbx
  movq %rax, (%rbx)
  movq %rdi, 8(%rbx)
  movq %rsi, 16(%rbx)
  movq %rdx, 24(%rbx)
  movq %r10, 32(%rbx)
  movq %r8, 40(%rbx)
  movq %r9, 48(%rbx)
slsdbg_sysbuf_fast:
  syscall
  movq %rax, 56(%rbx)
  xorl %ecx, %ecx
  movq (%rbx), %r11
  cmpq $0, %r11
  je 30f
  cmpq $17, %r11
  je 30f
  cmpq $217, %r11
  je 30f
  cmpq $262, %r11
  je 31f
  cmpq $332, %r11
  je 33f
  cmpq $7, %r11
  je 34f
  cmpq $257, %r11
  je 35f
  cmpq $72, %r11
  je 36f
  cmpq $228, %r11
  je 43f
  cmpq $229, %r11
  je 43f
  cmpq $96, %r11
  je 44f
  cmpq $201, %r11
  je 45f
  jmp 32f
43:
  testq %rax, %rax
  jne 32f
  testq %rsi, %rsi
  jz 32f
  movl $16, %ecx
  jmp 32f
44:
  testq %rax, %rax
  jne 32f
  testq %rdi, %rdi
  jz 32f
  movl $16, %ecx
  movq %rdi, %rsi
  jmp 32f
45:
  cmpq $-4096, %rax
  jae 32f
  testq %rdi, %rdi
  jz 32f
  movl $8, %ecx
  movq %rdi, %rsi
  jmp 32f
36:
  cmpq $1024, %rax
  jae 32f
  testl %esi, %esi
  jz 37f
  cmpl $1030, %esi
  jne 32f
37:
  xorl %r11d, %r11d
  cmpq $1024, %rdi
  jae 38f
  movzbl SB_TABLE(%rdi), %r11d
38:
  movb %r11b, SB_TABLE(%rax)
  jmp 32f
30:
  testq %rax, %rax
  jle 32f
  movq %rax, %rcx
  jmp 32f
31:
  testq %rax, %rax
  jne 32f
  movl $144, %ecx
  movq %rdx, %rsi
  jmp 32f
33:
  testq %rax, %rax
  jne 32f
  movl $256, %ecx
  movq %r8, %rsi
  jmp 32f
34:
  testq %rax, %rax
  js 32f
  leaq (,%rsi,8), %rcx
  movq %rdi, %rsi
  jmp 32f
35:
  cmpq $1024, %rax
  jae 32f
  movb $0, SB_TABLE(%rax)
  testl $0x10000, %edx
  jz 32f
  movb $4, SB_TABLE(%rax)
32:
  movq %rsi, 64(%rbx)
  movq %rcx, 72(%rbx)
  leaq 80(%rbx), %rdi
slsdbg_sysbuf_movs:
  rep movsb
  leaq 7(%rdi), %rcx
  andq $-8, %rcx
  subq $SB_ENTRIES, %rcx
  movq %rcx, SB_CURSOR
  movq $0, SB_BUSY
  popq %rsi
  popq %rdi
  leaq 16(%rsp), %rsp
  popq %rbx
  movq (%rsp), %r11
  popfq
  jmp 95f
89:
  movq $0, SB_BUSY
90:
  popq %rsi
  popq %rdi
  popq %r11
  popq %rcx
  popq %rbx
  popfq
slsdbg_sysbuf_slow:
  syscall
95:
  movq (%rsp), %rcx
  jrcxz 96f
  movq 128(%rsp), %rcx
  leaq -6(%rcx), %rcx
  leaq 128(%rsp), %rsp
  cmpq $-4096, %rax
slsdbg_sysbuf_ret_wide:
  ret
96:
  movq 128(%rsp), %rcx
  leaq -5(%rcx), %rcx
  leaq 128(%rsp), %rsp
  cmpl $0xfffff000, %eax
slsdbg_sysbuf_ret_narrow:
  ret
slsdbg_sysbuf_end:
  .popsection
)");

extern "C" const uint8_t slsdbg_sysbuf_begin[];
extern "C" const uint8_t slsdbg_sysbuf_end[];
extern "C" const uint8_t slsdbg_sysbuf_fast[];
extern "C" const uint8_t slsdbg_sysbuf_slow[];
extern "C" const uint8_t slsdbg_sysbuf_movs[];
extern "C" const uint8_t slsdbg_sysbuf_code[];
extern "C" const uint8_t slsdbg_sysbuf_ret_wide[];
extern "C" const uint8_t slsdbg_sysbuf_ret_narrow[];

namespace slsdbg::process {

static_assert(kSysbufStubAddr == 0x70002000 && kSysbufHeaderAddr == 0x70003000 && kSysbufEntriesAddr == 0x70004000 &&
                  kSysbufEntriesSize == 0xfc000 && kSysbufMaxRead == 0x40000,
              "the stub hard-codes the syscall buffer's layout");

std::span<const uint8_t> sysbuf_stub_code() {
  return {slsdbg_sysbuf_begin, static_cast<size_t>(slsdbg_sysbuf_end - slsdbg_sysbuf_begin)};
}

SysbufStubLayout sysbuf_stub_layout() {
  auto at = [](const uint8_t* p) { return kSysbufStubAddr + static_cast<uint64_t>(p - slsdbg_sysbuf_begin); };
  return SysbufStubLayout{at(slsdbg_sysbuf_code), at(slsdbg_sysbuf_end), at(slsdbg_sysbuf_fast),
                          at(slsdbg_sysbuf_slow), at(slsdbg_sysbuf_movs), at(slsdbg_sysbuf_ret_wide),
                          at(slsdbg_sysbuf_ret_narrow)};
}

}  // namespace slsdbg::process
