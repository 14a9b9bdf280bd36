// Fixture (threads, catch syscall): two workers, one after the other, each
// write one line from their own thread (11 and 18 bytes); then the main
// thread writes its line (10 bytes). Every write is a logged system call of
// a known thread and length, in a fixed order.
#include <pthread.h>
#include <string.h>
#include <unistd.h>

static void* worker(void* arg) {
  const char* line = arg;
  if (write(1, line, strlen(line)) < 0) return arg;
  return NULL;
}

int main(void) {
  static char one[] = "worker one\n";
  static char two[] = "worker number two\n";
  pthread_t t;
  pthread_create(&t, NULL, worker, one);
  pthread_join(t, NULL);
  pthread_create(&t, NULL, worker, two);
  pthread_join(t, NULL);
  return write(1, "main done\n", 10) == 10 ? 0 : 1;
}
