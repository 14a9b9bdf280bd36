// Fixture (threads, watchpoints): the main thread sets `shared` to 1 and
// starts a writer thread, which sets it to 2, then 3 (two stores with no
// system call between them); the main thread joins it, reads it into
// `seen` and prints "shared 3 seen 3".
#include <pthread.h>
#include <stdio.h>

volatile int shared;
volatile int seen;

static void* writer(void* arg) {
  (void)arg;
  shared = 2; /* WATCH_B2 */
  shared = 3; /* WATCH_B3 */
  return NULL;
}

int main(void) {
  pthread_t t;
  shared = 1; /* WATCH_A1 */
  pthread_create(&t, NULL, writer, NULL);
  pthread_join(t, NULL);
  seen = shared; /* WATCH_READ */
  printf("shared %d seen %d\n", shared, seen); /* WATCH_END */
  return 0;
}
