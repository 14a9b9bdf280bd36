// Fixture (record --syscall-buffer): the buffered calls given bad pointers,
// through glibc's wrappers (patched sites after the first call). Each must
// return what the kernel returns natively (EFAULT, or a short count where
// part of a buffer is valid), never crash in the stub. Prints every result
// with its errno, so a native and a recorded run can be compared.
//   rec_sysbuf_fault DIR ROUNDS
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

static void show(const char* what, long r) { printf("%s = %ld (%s)\n", what, r, r < 0 ? strerror(errno) : "ok"); }

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: rec_sysbuf_fault DIR ROUNDS\n");
    return 2;
  }
  const int rounds = atoi(argv[2]);
  char path[4096];
  snprintf(path, sizeof path, "%s/rec_sysbuf_fault.dat", argv[1]);
  int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
  int null_fd = open("/dev/null", O_WRONLY);
  if (fd < 0 || null_fd < 0) return 3;
  char block[8192];
  memset(block, 'a', sizeof block);
  if (write(fd, block, sizeof block) != (ssize_t)sizeof block) return 4;
  // A readable page followed by an inaccessible one; a read-only page.
  char* two = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  char* ro = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (two == MAP_FAILED || ro == MAP_FAILED || mprotect(two + 4096, 4096, PROT_NONE) != 0) return 5;
  char* const bad = (char*)16;  // never mapped
  struct stat st;
  struct statx stx;
  for (int r = 0; r < rounds; r++) {
    printf("round %d\n", r);
    show("read(file, bad)", pread(fd, bad, 100, 0));
    show("read(file, read-only page)", pread(fd, ro, 100, 0));
    // 100 bytes fit before the inaccessible page: a short read.
    show("read(file, straddling)", pread(fd, two + 4096 - 100, 300, 0));
    lseek(fd, 0, SEEK_SET);
    show("read(file, bad) at the offset", read(fd, bad, 10));
    show("offset after", lseek(fd, 0, SEEK_CUR));
    show("write(file, bad)", pwrite(fd, bad, 10, 0));
    show("write(/dev/null, bad)", write(null_fd, bad, 10));
    show("stat(bad path)", stat(bad, &st));
    show("stat(path, bad buffer)", stat(path, (struct stat*)bad));
    show("fstat(file, bad buffer)", fstat(fd, (struct stat*)bad));
    show("fstatat(file, \"\", bad, AT_EMPTY_PATH)", fstatat(fd, "", (struct stat*)bad, AT_EMPTY_PATH));
    show("fstatat(cwd, bad path, AT_EMPTY_PATH)", fstatat(AT_FDCWD, bad, &st, AT_EMPTY_PATH));
    show("statx(bad path)", statx(AT_FDCWD, bad, 0, STATX_BASIC_STATS, &stx));
    show("statx(path, bad buffer)", statx(AT_FDCWD, path, 0, STATX_BASIC_STATS, (struct statx*)bad));
    show("statx(path)", statx(AT_FDCWD, path, 0, STATX_SIZE, &stx));
    printf("statx size %llu\n", (unsigned long long)stx.stx_size);
    show("stat(path)", stat(path, &st));
    printf("stat size %lld\n", (long long)st.st_size);
    show("open(bad path, O_DIRECTORY)", open(bad, O_RDONLY | O_DIRECTORY));
    show("open(bad path, O_PATH)", open(bad, O_PATH));
    int dir = open(argv[1], O_RDONLY | O_DIRECTORY);
    show("open(dir, O_DIRECTORY)", dir >= 0 ? 0 : -1);
    show("getdents64(dir, bad)", getdents64(dir, bad, 4096));
    close(dir);
    show("poll(bad, 1, 0)", poll((struct pollfd*)bad, 1, 0));
    show("poll(bad, 0, 0)", poll((struct pollfd*)bad, 0, 0));
    show("close(bad fd)", close(1000));
  }
  return 0;
}
