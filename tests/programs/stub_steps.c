/* Fixture for e2e_replay_gdb_stub_steps: writes of one byte to /dev/null
 * (served by the syscall buffer's stub once glibc's write site is patched)
 * with ~10^7 instructions of work before each, so that a reverse step
 * inside the stub is far from the segment's last event. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

volatile unsigned long stub_steps_sink;

int main(int argc, char** argv) {
  long work = argc > 1 ? atol(argv[1]) : 3000000;
  int fd = open("/dev/null", O_WRONLY);
  if (fd < 0) return 2;
  for (int round = 0; round < 6; round++) {
    for (long i = 0; i < work; i++) stub_steps_sink += (unsigned long)i;
    if (write(fd, "x", 1) != 1) return 3;
  }
  printf("stub_steps: done\n");
  return 0;
}
