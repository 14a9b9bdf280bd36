// Fixture (process tree): a forked child that computes in a function of its
// own and sends the result through a pipe (exit 7); a forked child that
// execs `wc -c` on a second pipe the parent writes; a vfork child that execs
// /bin/echo. The parent prints what came back and each exit status. Every
// process is recorded: tests replay each one (-p PID) and break in
// child_compute inside the first child.
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int child_result = -1;  // set in the first child only

int child_compute(int n) {
  int v = 0;
  for (int i = 1; i <= n; i++) v += i;  // 1+...+6 = 21
  return v * 2;
}

int main(void) {
  int to_parent[2], to_wc[2];
  if (pipe(to_parent) != 0 || pipe(to_wc) != 0) return 1;
  pid_t a = fork();
  if (a < 0) return 2;
  if (a == 0) {
    close(to_parent[0]);
    child_result = child_compute(6);
    char msg[32];
    int n = snprintf(msg, sizeof msg, "child value %d", child_result);
    if (write(to_parent[1], msg, (size_t)n) != n) _exit(1);
    _exit(7);
  }
  close(to_parent[1]);
  pid_t b = fork();
  if (b < 0) return 3;
  if (b == 0) {
    dup2(to_wc[0], 0);
    close(to_wc[0]);
    close(to_wc[1]);
    execl("/usr/bin/wc", "wc", "-c", (char*)NULL);
    _exit(127);
  }
  close(to_wc[0]);
  const char text[] = "eleven char";
  if (write(to_wc[1], text, strlen(text)) != (ssize_t)strlen(text)) return 4;
  close(to_wc[1]);
  int sb = -1;
  if (waitpid(b, &sb, 0) != b) return 5;
  fflush(stdout);
  pid_t c = vfork();
  if (c < 0) return 6;
  if (c == 0) {
    execl("/bin/echo", "echo", "vforked", (char*)NULL);
    _exit(127);
  }
  int sa = -1, sc = -1;
  char got[64] = {0};
  size_t len = 0;
  for (ssize_t n; (n = read(to_parent[0], got + len, sizeof got - 1 - len)) > 0;) len += (size_t)n;
  if (waitpid(a, &sa, 0) != a || waitpid(c, &sc, 0) != c) return 7;
  printf("got '%s'; exits %d %d %d\n", got, WEXITSTATUS(sa), WEXITSTATUS(sb), WEXITSTATUS(sc));
  return 0;
}
