// Sorts the same table again and again with a bottom-up merge sort, as
// GNU sort does with its line table: each pass sweeps both 4 MiB arrays, so
// consecutive 10 ms intervals write different pages, and the same pages
// come round again a pass later. Prints a checksum.
// Usage: rec_mergesort [ROUNDS] (default 6).
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N (512 * 1024)

static void merge_sort(uint64_t* a, uint64_t* tmp) {
  for (size_t w = 1; w < N; w *= 2) {
    for (size_t lo = 0; lo < N; lo += 2 * w) {
      size_t mid = lo + w < N ? lo + w : N, hi = lo + 2 * w < N ? lo + 2 * w : N;
      size_t i = lo, j = mid, k = lo;
      while (i < mid && j < hi) tmp[k++] = a[i] <= a[j] ? a[i++] : a[j++];
      while (i < mid) tmp[k++] = a[i++];
      while (j < hi) tmp[k++] = a[j++];
    }
    memcpy(a, tmp, N * sizeof *a);
  }
}

int main(int argc, char** argv) {
  long rounds = argc > 1 ? atol(argv[1]) : 6;
  uint64_t* a = malloc(N * sizeof *a);
  uint64_t* tmp = malloc(N * sizeof *tmp);
  if (!a || !tmp) return 1;
  uint64_t x = 88172645463325252ull, sum = 0;
  for (long r = 0; r < rounds; r++) {
    for (size_t i = 0; i < N; i++) x ^= x << 13, x ^= x >> 7, x ^= x << 17, a[i] = x;
    merge_sort(a, tmp);
    for (size_t i = 0; i < N; i += 4096) sum = sum * 31 + a[i];
  }
  printf("%llu\n", (unsigned long long)sum);
  return 0;
}
