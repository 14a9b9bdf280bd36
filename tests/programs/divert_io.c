/* Fixture for tests/e2e/test_replay_gdb_divert_syscalls.sh and
 * test_pack_moved.sh: functions GDB calls in a diversion that make syscalls
 * (a write to stdout, an open that would create a file), and a named
 * function with a local for symbol checks. argv[1]: the path create_target()
 * would create; the program itself never calls it. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

const char *target_path = "/nonexistent/divert_io";

int say(int n) {
  char buf[32];
  int len = snprintf(buf, sizeof buf, "diverted %d\n", n);
  return (int)write(1, buf, (size_t)len);
}

int create_target(void) {
  int fd = open(target_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) return -errno;
  close(fd);
  return fd;
}

int checksum(int rounds) {
  int total = 0;
  for (int i = 1; i <= rounds; i++) total += i * 3;
  return total; /* SUM */
}

int main(int argc, char **argv) {
  if (argc > 1) target_path = argv[1];
  int sum = checksum(10);
  printf("sum %d\n", sum);
  return 0;
}
