// Fixture (threads): two threads pass a token back and forth 6 times by
// spinning on an atomic, with no syscall in the loop: only the recorder's
// tick can switch from the spinning thread to the other one. Prints
// "spin 6 done" (fixed).
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

#define ROUNDS 6
static atomic_int token;  // even: main's turn, odd: the other thread's

static void* other(void* arg) {
  (void)arg;
  for (int i = 0; i < ROUNDS; i++) {
    while (atomic_load(&token) != 2 * i + 1) {
    }
    atomic_store(&token, 2 * i + 2);
  }
  return NULL;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, NULL, other, NULL);
  for (int i = 0; i < ROUNDS; i++) {
    while (atomic_load(&token) != 2 * i) {
    }
    atomic_store(&token, 2 * i + 1);
  }
  while (atomic_load(&token) != 2 * ROUNDS) {
  }
  pthread_join(t, NULL);
  printf("spin %d done\n", ROUNDS);
  return 0;
}
