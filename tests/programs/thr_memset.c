// Fixture (threads): two threads each fill and copy 4 MB buffers with
// memset and memcpy (glibc's `rep stosb` / `rep movsb` for such sizes) for
// about 0.1 s of CPU. Most of the time goes to those instructions, so a
// tick usually cuts one between two iterations (engine/replay/rep_store.h).
// Prints "memset 16 <checksum>" (fixed).
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SIZE (4u << 20)
#define ROUNDS 8

static uint64_t work(int seed) {
  unsigned char* a = malloc(SIZE);
  unsigned char* b = malloc(SIZE);
  uint64_t sum = 0;
  for (int i = 0; i < ROUNDS; i++) {
    memset(a, seed + i, SIZE);
    memcpy(b, a, SIZE);
    sum += b[(unsigned)i * 4099u % SIZE] + a[SIZE - 1 - i];
  }
  free(a);
  free(b);
  return sum;
}

static void* other(void* arg) {
  static uint64_t sum;
  sum = work((int)(intptr_t)arg);
  return &sum;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, NULL, other, (void*)(intptr_t)7);
  uint64_t mine = work(1);
  void* theirs;
  pthread_join(t, &theirs);
  printf("memset %d %llu\n", 2 * ROUNDS, (unsigned long long)(mine + *(uint64_t*)theirs));
  return 0;
}
