// Fixture (threads, watchpoints, #20): a worker thread stores 1 into
// `watched`, then spins through a loop whose body is register-only
// arithmetic (an asm block: no memory operand, no stack) for about 0.2 s,
// so nearly every tick of the recorder stands where the patch that reaches
// a checkpoint moves only register instructions; the main thread joins it,
// reads `watched` and prints the result (built -O2: the loop keeps its
// variables in registers). A reverse watch from the read crosses every
// checkpoint of the loop back to the store.
#include <pthread.h>
#include <stdio.h>

#define N 100000000L
volatile long watched;
long sink;

static void* worker(void* arg) {
  (void)arg;
  watched = 1; /* WATCH_STORE */
  unsigned long a = 1, b = 2, c = 3, d = 5;
  for (long i = 0; i < N; i++) {
    __asm__ volatile(
        "add $0x1234567, %0\n\t"
        "xor $0x7654321, %1\n\t"
        "add $0x1111111, %2\n\t"
        "xor $0x2222222, %3\n\t"
        "rol $3, %0\n\t"
        "add %0, %1\n\t"
        "add $0x3333333, %2\n\t"
        "xor %2, %3\n\t"
        "add $0x4444444, %0\n\t"
        "xor $0x5555555, %1\n\t"
        "add $0x6666666, %2\n\t"
        "xor $0x7777777, %3\n\t"
        "ror $5, %1\n\t"
        "add %3, %0\n\t"
        "add $0x0abcdef, %1\n\t"
        "xor $0x0fedcba, %2\n\t"
        : "+r"(a), "+r"(b), "+r"(c), "+r"(d));
  }
  sink = (long)(a ^ b ^ c ^ d);
  return NULL;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  pthread_join(t, NULL);
  long seen = watched; /* WATCH_READ */
  printf("watched %ld sink %ld\n", seen, sink);
  return 0;
}
