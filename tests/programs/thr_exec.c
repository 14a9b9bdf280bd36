// Fixture (threads): starts a thread that waits, then the main thread execs
// /bin/true while it is alive. `record --threads` refuses the execve (the
// kernel would end the other thread behind the log), naming it.
#include <pthread.h>
#include <unistd.h>

static void* waiter(void* arg) {
  (void)arg;
  pause();
  return NULL;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, NULL, waiter, NULL);
  usleep(1000);
  execl("/bin/true", "true", (char*)NULL);
  return 1;
}
