// Fixture (threads, syscall buffer): a thread waits in read() on a pipe
// while the main thread makes the program's first call the buffer serves
// (a write to /dev/null), so libc's sites are patched while the reader
// stands right after the `syscall` of its read: that site must be left as
// it is, or the read would return into the middle of the patch. The main
// thread then writes ROUNDS lines into the pipe; the reader sums the bytes.
// usage: rec_sysbuf_thread_waits ROUNDS; prints the byte count and sum.
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int fds[2];
static long bytes, sum;

static void* reader(void* arg) {
  (void)arg;
  unsigned char buf[256];
  ssize_t n;
  while ((n = read(fds[0], buf, sizeof buf)) > 0) {
    for (ssize_t i = 0; i < n; i++) sum += buf[i];
    bytes += n;
  }
  return NULL;
}

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? atoi(argv[1]) : 1000;
  if (pipe(fds) != 0) return 1;
  pthread_t t;
  if (pthread_create(&t, NULL, reader, NULL) != 0) return 1;
  usleep(20000);  // the reader waits in its read by now
  const int null = open("/dev/null", O_WRONLY);
  char line[64];
  for (int i = 0; i < 100; i++) (void)!write(null, "padding", 7);
  for (int i = 0; i < rounds; i++) {
    const int len = snprintf(line, sizeof line, "line %d\n", i);
    if (write(fds[1], line, (size_t)len) != len) return 1;
  }
  close(fds[1]);
  pthread_join(t, NULL);
  printf("bytes %ld sum %ld\n", bytes, sum);
  return 0;
}
