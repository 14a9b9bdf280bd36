// Spends its time inside long rep string instructions (rep movsb, rep
// stosq, repe cmpsb over equal buffers), so that checkpoint ticks cut them
// between two iterations: replay must stop at exactly the recorded rcx.
// Written in asm so that glibc's choice of copy loop does not decide.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define SIZE (8u << 20)

static void rep_movsb(void* dst, const void* src, size_t n) {
  __asm__ volatile("rep movsb" : "+D"(dst), "+S"(src), "+c"(n) : : "memory");
}

static void rep_stosq(void* dst, uint64_t value, size_t words) {
  __asm__ volatile("rep stosq" : "+D"(dst), "+c"(words) : "a"(value) : "memory");
}

// Bytes left when the first difference (or the end) was met.
static size_t repe_cmpsb(const void* a, const void* b, size_t n) {
  __asm__ volatile("repe cmpsb" : "+D"(a), "+S"(b), "+c"(n) : : "memory", "cc");
  return n;
}

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? atoi(argv[1]) : 12;
  uint8_t* a = malloc(SIZE);
  uint8_t* b = malloc(SIZE);
  if (!a || !b) return 1;
  uint64_t sum = 0;
  for (int r = 0; r < rounds; r++) {
    rep_stosq(a, 0x0101010101010101ull * (uint64_t)(r + 1), SIZE / 8);
    a[SIZE - 1 - (size_t)r] = (uint8_t)r;  // the compare ends early, r bytes before the end
    rep_movsb(b, a, SIZE);
    b[SIZE - 1 - (size_t)r] ^= 0xff;
    sum = sum * 31 + repe_cmpsb(a, b, SIZE) + b[(size_t)r * 4096];
  }
  printf("rep_cut %d %llu\n", rounds, (unsigned long long)sum);
  return 0;
}
