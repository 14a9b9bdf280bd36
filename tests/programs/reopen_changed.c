// Opens files whose existence changes between recording and replay:
// `DIR/made` is written, reopened read-only and read back, then deleted
// (a temporary file, as gcc's pipeline leaves for `as`); `DIR/later` does
// not exist while recording (the test creates it before replaying). Then
// one more file is opened, whose number shows the table stayed in step.
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: reopen_changed DIR\n");
    return 2;
  }
  char made[4096], later[4096], buf[64] = {0};
  snprintf(made, sizeof made, "%s/made", argv[1]);
  snprintf(later, sizeof later, "%s/later", argv[1]);
  int w = open(made, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  if (w < 0 || write(w, "written then read back", 22) != 22) return 1;
  close(w);
  int r = open(made, O_RDONLY);
  if (r < 0 || read(r, buf, sizeof buf - 1) < 0) return 1;
  unlink(made);
  int missing = open(later, O_RDONLY);
  int next = open("/dev/null", O_RDONLY);
  printf("read '%s' from fd %d; later: %s; next fd %d\n", buf, r, missing < 0 ? strerror(errno) : "opened", next);
  close(r);
  close(next);
  return 0;
}
