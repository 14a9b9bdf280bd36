// Fixture (recorder): file I/O in directory argv[1]: create, write, pwrite,
// lseek, read, pread, readv, fstat, getdents (via readdir), rename, unlink.
// Prints what it read back; deterministic.
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  char path[4096], path2[4096];
  snprintf(path, sizeof path, "%s/rec_fileio.dat", argv[1]);
  snprintf(path2, sizeof path2, "%s/rec_fileio.moved", argv[1]);
  int fd = open(path, O_CREAT | O_TRUNC | O_RDWR, 0600);
  if (fd < 0) { perror("open"); return 1; }
  unsigned long long sum = 0;
  char buf[8192];
  for (int i = 0; i < 256; i++) {
    memset(buf, 'a' + i % 26, sizeof buf);
    if (write(fd, buf, sizeof buf) != (ssize_t)sizeof buf) return 1;
  }
  pwrite(fd, "HEADER", 6, 0);
  lseek(fd, 0, SEEK_SET);
  ssize_t n;
  while ((n = read(fd, buf, sizeof buf)) > 0)
    for (ssize_t k = 0; k < n; k++) sum = sum * 31 + (unsigned char)buf[k];
  char a[7] = {0}, b[5] = {0};
  struct iovec iov[2] = {{a, 6}, {b, 4}};
  lseek(fd, 0, SEEK_SET);
  readv(fd, iov, 2);
  char p[4] = {0};
  pread(fd, p, 3, 8192 * 3);
  struct stat st;
  fstat(fd, &st);
  close(fd);
  rename(path, path2);
  int found = 0;
  DIR* d = opendir(argv[1]);
  struct dirent* e;
  while ((e = readdir(d)))
    if (strcmp(e->d_name, "rec_fileio.moved") == 0) found = 1;
  closedir(d);
  unlink(path2);
  printf("rec_fileio size %lld checksum %llu head %s %s at3 %s found %d\n", (long long)st.st_size, sum, a, b, p, found);
  return 0;
}
