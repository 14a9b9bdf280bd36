// Fixture (recorder): reads /dev/urandom and getrandom(); prints only the
// sizes (the bytes differ run to run) and that the two sources differ.
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

int main(void) {
  unsigned char a[64], b[64];
  int fd = open("/dev/urandom", O_RDONLY);
  ssize_t n = read(fd, a, sizeof a);
  close(fd);
  ssize_t m = getrandom(b, sizeof b, 0);
  printf("rec_urandom read %zd getrandom %zd differ %d\n", n, m, memcmp(a, b, sizeof a) != 0);
  return 0;
}
