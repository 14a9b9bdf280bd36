// A hot loop in code no .eh_frame_hdr covers, shaped like Go's `-N -l`
// output (engine/replay/relay_site.h): a 2-byte `jmp` to the next
// instruction and a `jnz` (no site of their own), 3 int3s after the
// function and none further within a short jump's reach, 31 int3s before
// its 32-byte aligned start. Usage: nocfi_loop [ITERATIONS]; prints the sum
// of ITERATIONS..1.
#include <stdio.h>
#include <stdlib.h>

long nocfi_sum(long n);
__asm__(
    ".text\n"
    ".p2align 5\n"
    "nocfi_prev:\n"
    "  ret\n"
    ".p2align 5, 0xcc\n"
    "nocfi_sum:\n"
    "  xor %eax, %eax\n"
    "1: add %rdi, %rax\n"
    "  jmp 2f\n"
    "2: dec %rdi\n"
    "  jnz 1b\n"
    "  ret\n"
    ".fill 3, 1, 0xcc\n"
    ".rept 60\n"
    "  mov %rax, %rdx\n"
    ".endr\n"
    "  ret\n");

int main(int argc, char** argv) {
  long n = argc > 1 ? atol(argv[1]) : 300000000;
  printf("%ld\n", nocfi_sum(n));
  return 0;
}
