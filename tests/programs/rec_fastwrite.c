// Fixture (recorder): output-free writes the recorder performs itself at the
// seccomp stop. In directory argv[1], for argv[2] rounds: write, pwrite,
// writev, pwritev and lseek on a regular file, through a second fd sharing its
// offset (dup) and a separate O_APPEND open; one-byte writes to /dev/null and
// /dev/zero; a pipe (not eligible); fd numbers reused by close + open and
// replaced by dup2 (cached duplicates must follow); writes whose buffers the
// kernel cannot read (EFAULT, or not read at all by /dev/null). Prints every
// result folded into a checksum, then the file's size and checksum.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

static unsigned long long sum = 0;
static void note(long long r) { sum = sum * 1000003 + (unsigned long long)(r < 0 ? -errno * 7919 : r); }

int main(int argc, char** argv) {
  if (argc < 3) return 2;
  const int rounds = atoi(argv[2]);
  char path[4096];
  snprintf(path, sizeof path, "%s/rec_fastwrite.dat", argv[1]);
  int fd = open(path, O_CREAT | O_TRUNC | O_RDWR, 0600);
  int shared = dup(fd);                       // same description: same offset
  int app = open(path, O_WRONLY | O_APPEND);  // own description, appends
  int null = open("/dev/null", O_WRONLY);
  int zero = open("/dev/zero", O_WRONLY);
  int p[2];
  if (fd < 0 || shared < 0 || app < 0 || null < 0 || zero < 0 || pipe(p) != 0) { perror("setup"); return 1; }
  char line[64];
  void* volatile unmapped = (void*)8;  // volatile: no compile-time overread warning
  for (int i = 0; i < rounds; i++) {
    int n = snprintf(line, sizeof line, "line %d\n", i);
    note(write(fd, line, n));
    note(write(shared, "s", 1));
    note(write(app, "A", 1));
    note(pwrite(fd, "P", 1, i));
    struct iovec iov[3] = {{"v1", 2}, {"", 0}, {"v22", 3}};
    note(writev(shared, iov, 3));
    note(pwritev(fd, iov, 3, 3 * i));
    note(lseek(fd, 0, SEEK_CUR));
    note(write(null, "x", 1));
    note(write(zero, "y", 1));
    note(lseek(null, 5, SEEK_SET));
    if (i % 64 == 0) {
      note(write(p[1], "z", 1));
      char c;
      note(read(p[0], &c, 1));
      note(write(fd, unmapped, 4));       // EFAULT on a regular file
      note(write(null, unmapped, 4));     // /dev/null never reads it: 4
      struct iovec bad[2] = {{"ok", 2}, {unmapped, 3}};
      note(writev(fd, bad, 2));
      note(lseek(fd, -1, SEEK_SET));      // EINVAL
      note(write(p[0], "r", 1));          // EBADF: read end
    }
    if (i % 97 == 0) {
      // Reuse numbers: the /dev/null fd closed and reopened as the data file
      // (the same number), then dup2'ed back to /dev/null.
      close(null);
      int again = open(path, O_WRONLY | O_APPEND);
      if (again != null) { fprintf(stderr, "expected fd %d, got %d\n", null, again); return 1; }
      note(write(null, "R", 1));
      int dn = open("/dev/null", O_WRONLY);
      note(dup2(dn, null));
      close(dn);
      note(write(null, "gone", 4));
    }
    if (i % 211 == 0) {
      // Replace the O_APPEND fd with a fresh description at offset 0 via dup3.
      int plain = open(path, O_WRONLY);
      note(dup3(plain, app, 0));
      close(plain);
      note(write(app, "D", 1));
      int back = open(path, O_WRONLY | O_APPEND);
      note(dup3(back, app, 0));
      close(back);
    }
    if (i % 301 == 0) {
      // Toggle O_APPEND on the shared description: both fd and shared follow.
      note(fcntl(fd, F_SETFL, O_APPEND));
      note(write(shared, "+", 1));
      note(fcntl(fd, F_SETFL, 0));
    }
  }
  close(fd);
  close(shared);
  close(app);
  int rd = open(path, O_RDONLY);
  unsigned long long fsum = 0;
  long long size = 0;
  char buf[4096];
  ssize_t got;
  while ((got = read(rd, buf, sizeof buf)) > 0) {
    for (ssize_t k = 0; k < got; k++) fsum = fsum * 131 + (unsigned char)buf[k];
    size += got;
  }
  close(rd);
  printf("rec_fastwrite rounds %d results %llu size %lld checksum %llu\n", rounds, sum, size, fsum);
  return 0;
}
