// Fixture (syscall buffer and threads): two rounds of "start a thread, join
// it, then read a file in 64-byte reads and write a line per 16 reads to
// stdout". The buffer is off while the thread runs and serves the reads and
// writes after each join (recorder/record/syscallbuf.h, on_threads_gone).
// Prints a checksum of the file per round and "rejoin done".
// After each join it waits until /proc/self/task lists one thread: the
// kernel wakes pthread_join before the thread's exit reaches the tracer,
// so without the wait the first reads after a join still stop (by how
// much depends on the machine's load).
// usage: rec_sysbuf_rejoin FILE
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static volatile unsigned long spun;

static void* worker(void* arg) {
  for (unsigned long i = 0; i < 2000000; i++) spun += i ^ (unsigned long)arg;
  return NULL;
}

static unsigned long read_round(const char* path, int round) {
  int fd = open(path, O_RDONLY);
  if (fd < 0) return 0;
  unsigned long sum = 0;
  char buf[64];
  char line[64];
  ssize_t n;
  for (int reads = 0; (n = read(fd, buf, sizeof buf)) > 0; reads++) {
    for (ssize_t i = 0; i < n; i++) sum = sum * 31 + (unsigned char)buf[i];
    if (reads % 16 == 0) {
      int len = snprintf(line, sizeof line, "round %d read %d sum %lu\n", round, reads, sum);
      if (write(1, line, (size_t)len) != len) return 0;
    }
  }
  lseek(fd, 0, SEEK_SET);
  close(fd);
  return sum;
}

static int task_count(void) {
  DIR* d = opendir("/proc/self/task");
  if (!d) return -1;
  int n = 0;
  for (struct dirent* e; (e = readdir(d)) != NULL;)
    if (e->d_name[0] != '.') n++;
  closedir(d);
  return n;
}

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: rec_sysbuf_rejoin FILE\n");
    return 2;
  }
  for (int round = 0; round < 2; round++) {
    pthread_t t;
    pthread_create(&t, NULL, worker, (void*)(unsigned long)round);
    pthread_join(t, NULL);
    while (task_count() > 1) sched_yield();
    char line[64];
    int len = snprintf(line, sizeof line, "round %d checksum %lu\n", round, read_round(argv[1], round));
    if (write(1, line, (size_t)len) != len) return 1;
  }
  if (write(1, "rejoin done\n", 12) != 12) return 1;
  return 0;
}
