// Fixture (record --syscall-buffer): the calls the syscall buffer serves,
// through glibc's wrappers: write/pwrite/lseek/read/pread/fstat on a regular
// file (short reads at its end included), writes to /dev/null, reads of
// /dev/zero, and then a burst of one-byte writes to /dev/null (argv[3]) that
// fills the buffer. A 1 ms SIGALRM handler that reads and writes too arrives
// in the middle of all of it. Prints a checksum of everything read and the
// sizes fstat saw, not the alarm count (that depends on timing).
//   rec_sysbuf DIR ROUNDS BURST [noalarm]
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

static int null_fd, zero_fd;
static volatile unsigned long handler_sum;

static void on_alarm(int sig) {
  (void)sig;
  char z[16];
  if (read(zero_fd, z, sizeof z) == (ssize_t)sizeof z) handler_sum += (unsigned char)z[3];
  write(null_fd, "h", 1);
}

static unsigned long mix(unsigned long h, const unsigned char* p, long n) {
  for (long i = 0; i < n; i++) h = h * 131 + p[i];
  return h;
}

int main(int argc, char** argv) {
  if (argc != 4 && argc != 5) {
    fprintf(stderr, "usage: rec_sysbuf DIR ROUNDS BURST [noalarm]\n");
    return 2;
  }
  const int rounds = atoi(argv[2]);
  const long burst = atol(argv[3]);
  char path[4096];
  snprintf(path, sizeof path, "%s/rec_sysbuf.dat", argv[1]);
  int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
  null_fd = open("/dev/null", O_WRONLY);
  zero_fd = open("/dev/zero", O_RDONLY);
  if (fd < 0 || null_fd < 0 || zero_fd < 0) return 3;

  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_alarm;
  sa.sa_flags = SA_RESTART;
  sigaction(SIGALRM, &sa, 0);
  // One call of each kind before the alarms: their glibc sites get patched
  // here (each patch is followed by a forced checkpoint, which replay
  // crosses by restore; see test_record_syscall_buffer.sh).
  unsigned char warm[4];
  struct stat wst;
  write(null_fd, "w", 1);
  pwrite(fd, warm, 0, 0);
  lseek(fd, 0, SEEK_CUR);
  read(zero_fd, warm, 1);
  pread(fd, warm, 0, 0);
  fstat(fd, &wst);

  struct itimerval it = {{0, 1000}, {0, 1000}};
  if (argc == 4) setitimer(ITIMER_REAL, &it, 0);

  unsigned long h = 7;
  unsigned char buf[300];
  for (int r = 0; r < rounds; r++) {
    for (int i = 0; i < (int)sizeof buf; i++) buf[i] = (unsigned char)(r * 7 + i);
    write(fd, buf, 1 + r % 200);
    pwrite(fd, buf, 16, (r * 13) % 4096);
    write(null_fd, buf, 64);
    off_t end = lseek(fd, 0, SEEK_CUR);
    lseek(fd, end > 100 ? end - 100 : 0, SEEK_SET);
    // Asks for more than is left: a short read, then 0 at the end.
    ssize_t n = read(fd, buf, sizeof buf);
    if (n > 0) h = mix(h, buf, n);
    n = read(fd, buf, sizeof buf);
    h = h * 3 + (unsigned long)n;
    n = pread(fd, buf, 40, (r * 31) % 2000);
    if (n > 0) h = mix(h, buf, n);
    struct stat st;
    if (fstat(fd, &st) == 0) h = h * 5 + (unsigned long)st.st_size;
    n = read(zero_fd, buf, 32);
    h = mix(h, buf, n);
    lseek(fd, 0, SEEK_END);
  }
  for (long i = 0; i < burst; i++) write(null_fd, "x", 1);
  struct itimerval off = {{0, 0}, {0, 0}};
  setitimer(ITIMER_REAL, &off, 0);
  struct stat st;
  fstat(fd, &st);
  printf("rec_sysbuf: %d rounds, file %lld bytes, checksum %lx, zero reads in the handler %s\n", rounds,
         (long long)st.st_size, h, handler_sum == 0 ? "all zero" : "NOT ZERO");
  return 0;
}
