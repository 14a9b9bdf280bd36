// Fixture (record --syscall-buffer, signals during checkpoints): each round
// does buffered calls (pwrite/pread/lseek/fstat on a file, /dev/null and
// /dev/zero; the SIGALRM handler reads and writes too), arms a one-shot
// 100 us alarm and makes an unmodelled capget, which forces a checkpoint:
// the alarm mostly arrives while that checkpoint is captured. One alarm per
// round, so a slow recorder cannot starve the loop. Prints a checksum that
// does not depend on the alarms' timing.
//   rec_sysbuf_storm DIR ROUNDS
#include <fcntl.h>
#include <linux/capability.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <unistd.h>

static int null_fd, zero_fd;
static volatile unsigned long alarms;

static void on_alarm(int sig) {
  (void)sig;
  char z[8];
  if (read(zero_fd, z, sizeof z) == (ssize_t)sizeof z && z[5] == 0) alarms++;
  write(null_fd, "a", 1);
}

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: rec_sysbuf_storm DIR ROUNDS\n");
    return 2;
  }
  const int rounds = atoi(argv[2]);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_alarm;
  sa.sa_flags = SA_RESTART;
  sigaction(SIGALRM, &sa, 0);

  char path[4096];
  snprintf(path, sizeof path, "%s/rec_sysbuf_storm.dat", argv[1]);
  int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
  null_fd = open("/dev/null", O_WRONLY);
  zero_fd = open("/dev/zero", O_RDONLY);
  if (fd < 0 || null_fd < 0 || zero_fd < 0) return 3;
  unsigned long h = 11;
  unsigned char buf[64];
  for (int r = 0; r < rounds; r++) {
    for (int i = 0; i < (int)sizeof buf; i++) buf[i] = (unsigned char)(r * 5 + i);
    pwrite(fd, buf, sizeof buf, (r * 17) % 1024);
    write(null_fd, buf, 8);
    ssize_t n = pread(fd, buf, 32, (r * 7) % 1024);
    for (ssize_t i = 0; i < n; i++) h = h * 131 + buf[i];
    h = h * 3 + (unsigned long)lseek(fd, 0, SEEK_END);
    struct stat st;
    if (fstat(fd, &st) == 0) h = h * 5 + (unsigned long)st.st_size;
    if (read(zero_fd, buf, 16) == 16) h = h * 7 + buf[9];
    struct itimerval once = {{0, 0}, {0, 100}};
    setitimer(ITIMER_REAL, &once, 0);
    struct __user_cap_header_struct hdr = {_LINUX_CAPABILITY_VERSION_3, 0};
    struct __user_cap_data_struct data[2];
    h = h * 9 + (unsigned long)syscall(SYS_capget, &hdr, data);
  }
  struct itimerval off = {{0, 0}, {0, 0}};
  setitimer(ITIMER_REAL, &off, 0);
  printf("rec_sysbuf_storm: %d rounds, checksum %lx\n", rounds, h);
  return 0;
}
