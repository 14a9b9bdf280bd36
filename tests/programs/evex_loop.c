// A hot loop of AVX-512 mask and compare instructions (kmovd, vpcmpnequb),
// as glibc's __memcmp_evex_movbe runs them on CPUs with AVX-512, which
// Debian's Capstone 4.0.2 cannot decode (engine/replay/vex_insn.h): every
// checkpoint of a recording lands in it. Usage: evex_loop [ITERATIONS];
// prints the count of differing bytes seen; exits 3 without AVX-512BW/VL.
#include <stdio.h>
#include <stdlib.h>

static unsigned long compare_loop(const char* a, const char* b, long n) {
  unsigned long differing = 0;
  // ecx: all 32 bytes, k2 the mask, k1 the bytes that differ. A kmovd
  // (which Capstone 4.0.2 cannot decode) follows every other instruction,
  // so the 5 bytes a jump at any pc of the loop would replace hold one.
  __asm__ volatile(
      "mov $0xffffffff, %%ecx\n"
      "kmovd %%ecx, %%k2\n"
      "1:\n"
      "vmovdqu8 (%[b]), %%ymm1%{%%k2%}\n"
      "vpcmpnequb (%[a]), %%ymm1, %%k1%{%%k2%}\n"
      "kmovd %%k1, %%eax\n"
      "popcnt %%eax, %%eax\n"
      "kmovd %%ecx, %%k2\n"
      "add %%rax, %[d]\n"
      "kmovd %%ecx, %%k2\n"
      "dec %[n]\n"
      "kmovd %%ecx, %%k2\n"
      "jnz 1b\n"
      "vzeroupper\n"
      : [d] "+r"(differing), [n] "+r"(n)
      : [a] "r"(a), [b] "r"(b)
      : "rax", "rcx", "xmm1", "cc", "memory");
  return differing;
}

int main(int argc, char** argv) {
  if (!__builtin_cpu_supports("avx512bw") || !__builtin_cpu_supports("avx512vl")) {
    puts("no AVX-512BW/VL");
    return 3;
  }
  long n = argc > 1 ? atol(argv[1]) : 100000000;
  static char a[32], b[32];
  for (int i = 0; i < 32; i++) a[i] = b[i] = (char)i;
  b[5] = 'x';  // one differing byte per iteration
  printf("%lu\n", compare_loop(a, b, n));
  return 0;
}
