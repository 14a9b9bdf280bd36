// bench/record (c): argv[1] one-byte writes to /dev/null (default 1,000,000).
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char** argv) {
  long n = argc > 1 ? atol(argv[1]) : 1000000;
  int fd = open("/dev/null", O_WRONLY);
  for (long i = 0; i < n; i++)
    if (write(fd, "x", 1) != 1) return 1;
  return 0;
}
