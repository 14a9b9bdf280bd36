// Fixture (recorder): creates a thread; the recorder must refuse cleanly.
#include <pthread.h>
#include <stdio.h>

static void* worker(void* arg) { return arg; }

int main(void) {
  printf("rec_thread starting\n");
  fflush(stdout);
  pthread_t t;
  pthread_create(&t, 0, worker, 0);
  pthread_join(t, 0);
  printf("rec_thread joined\n");
  return 0;
}
