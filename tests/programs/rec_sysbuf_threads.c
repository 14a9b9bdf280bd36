// Fixture (recorder, syscall buffer with threads): the main thread and two
// workers each make many small buffered calls (pread64 of a file, write to
// /dev/null, lseek, fstat, clock_gettime) while the others run, and fold
// what they read into their own global, so a replay that served a call to
// the wrong thread, or out of order, leaves other memory. Prints only what
// does not vary from run to run.
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define WORKERS 2
static const char* path;
static int rounds;
volatile uint64_t folded[WORKERS + 1];
static int bad[WORKERS + 1];

static void* work(void* arg) {
  const int me = (int)(intptr_t)arg;
  int in = open(path, O_RDONLY), out = open("/dev/null", O_WRONLY);
  if (in < 0 || out < 0) {
    bad[me]++;
    return NULL;
  }
  struct stat st;
  if (fstat(in, &st) != 0 || st.st_size < 64) bad[me]++;
  uint64_t h = 0xcbf29ce484222325ull + (uint64_t)me;
  for (int i = 0; i < rounds; i++) {
    unsigned char b[16];
    const off_t at = (off_t)((i * 7 + me * 13) % (st.st_size - 16));
    if (pread(in, b, sizeof b, at) != (ssize_t)sizeof b) bad[me]++;
    for (size_t j = 0; j < sizeof b; j++) h = (h ^ b[j]) * 0x100000001b3ull;
    if (write(out, b, 1 + i % 8) != 1 + i % 8) bad[me]++;
    if (lseek(in, at, SEEK_SET) != at) bad[me]++;
    if (i % 16 == 0) {
      struct timespec ts;
      clock_gettime(CLOCK_MONOTONIC, &ts);
      h ^= (uint64_t)ts.tv_nsec << 1;
    }
    folded[me] = h;
  }
  close(out);
  close(in);
  return NULL;
}

int main(int argc, char** argv) {
  path = argc > 1 ? argv[1] : argv[0];
  rounds = argc > 2 ? atoi(argv[2]) : 3000;
  // A buffered call before the first thread: the libc sites get patched
  // while the program is alone (no site is patched while threads live).
  struct stat st;
  if (stat(path, &st) != 0) return 2;
  pthread_t t[WORKERS];
  for (int i = 0; i < WORKERS; i++) pthread_create(&t[i], NULL, work, (void*)(intptr_t)(i + 1));
  work((void*)(intptr_t)0);
  for (int i = 0; i < WORKERS; i++) pthread_join(t[i], NULL);
  int total = 0;
  for (int i = 0; i <= WORKERS; i++) total += bad[i];
  printf("rec_sysbuf_threads %d threads x %d rounds, %d bad\n", WORKERS + 1, rounds, total);
  return total != 0;
}
