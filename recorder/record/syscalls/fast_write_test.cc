// Checks FastWrite on a real (stopped, untraced) child process: writes to its
// /dev/null and regular-file fds are done through the child's own open file
// descriptions (offset shared with the child), a pipe is declined, an
// unreadable buffer is declined for a file but not for /dev/null, and a
// fd number replaced by dup2 is looked up afresh after before_syscall.
#include "recorder/record/syscalls/fast_write.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

namespace slsdbg::recorder {
namespace {

// The child is a fork of this process: this buffer has the same address there.
char g_data[] = "hello, world";
struct iovec g_iov[2] = {{g_data + 5, 2}, {g_data + 7, 5}};
// What the child dup2()s on SIGUSR1 (set before the signal; the child's copy
// of these is its own, so they are set before the fork too).
volatile int g_dup2_from = -1, g_dup2_to = -1;
void on_usr1(int) { dup2(g_dup2_from, g_dup2_to); }

struct Child {
  pid_t pid = -1;
  int null_fd = -1, file_fd = -1, pipe_fd = -1;
  ~Child() {
    if (pid > 0) {
      kill(pid, SIGKILL);
      waitpid(pid, nullptr, 0);
    }
  }
};

// Fds are opened before the fork, so parent and child agree on the numbers;
// the parent closes its copies so only the child's remain.
void spawn(Child& c, const std::string& path) {
  c.null_fd = open("/dev/null", O_WRONLY);
  c.file_fd = open(path.c_str(), O_CREAT | O_TRUNC | O_RDWR, 0600);
  int p[2];
  ASSERT_EQ(pipe(p), 0);
  c.pipe_fd = p[1];
  g_dup2_from = c.file_fd;
  g_dup2_to = c.null_fd;
  signal(SIGUSR1, on_usr1);
  c.pid = fork();
  ASSERT_GE(c.pid, 0);
  if (c.pid == 0) {
    for (;;) pause();
  }
  close(c.null_fd);
  close(c.file_fd);
  close(p[0]);
  close(p[1]);
}

std::array<uint64_t, 6> args(uint64_t a0, uint64_t a1 = 0, uint64_t a2 = 0, uint64_t a3 = 0) {
  return {a0, a1, a2, a3, 0, 0};
}

TEST(FastWrite, WritesThroughTheChildsDescriptions) {
  const std::string path = std::string(testing::TempDir()) + "fast_write_test.dat";
  Child c;
  spawn(c, path);
  FastWrite fw = FastWrite::for_process(c.pid);
  const uint64_t buf = reinterpret_cast<uint64_t>(g_data);

  auto r = fw.try_perform(SYS_write, args(c.null_fd, buf, 5));
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(*r, 5);
  // /dev/null never reads the bytes: an unreadable (but user) address succeeds natively.
  r = fw.try_perform(SYS_write, args(c.null_fd, 4096, 3));
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(*r, 3);

  r = fw.try_perform(SYS_write, args(c.file_fd, buf, 5));
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(*r, 5);
  r = fw.try_perform(SYS_writev, args(c.file_fd, reinterpret_cast<uint64_t>(g_iov), 2));
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(*r, 7);
  r = fw.try_perform(SYS_pwrite64, args(c.file_fd, buf, 1, 0));
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(*r, 1);
  // The child's offset moved with our writes (pwrite leaves it).
  r = fw.try_perform(SYS_lseek, args(c.file_fd, 0, SEEK_CUR));
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(*r, 12);
  // An unreadable buffer on a regular file: left to the tracee (EFAULT there).
  EXPECT_FALSE(fw.try_perform(SYS_write, args(c.file_fd, 4096, 3)).has_value());
  // Not eligible: a pipe; a closed fd; not a write.
  EXPECT_FALSE(fw.try_perform(SYS_write, args(c.pipe_fd, buf, 1)).has_value());
  EXPECT_FALSE(fw.try_perform(SYS_write, args(999, buf, 1)).has_value());
  EXPECT_FALSE(fw.try_perform(SYS_read, args(c.file_fd, buf, 1)).has_value());
  EXPECT_EQ(fw.performed(), 6u);

  FILE* f = fopen(path.c_str(), "r");
  ASSERT_NE(f, nullptr);
  char back[32] = {};
  EXPECT_EQ(fread(back, 1, sizeof back - 1, f), 12u);
  fclose(f);
  EXPECT_STREQ(back, "hello, world");
  unlink(path.c_str());
}

TEST(FastWrite, FollowsAnFdReplacedByDup2) {
  const std::string path = std::string(testing::TempDir()) + "fast_write_test2.dat";
  Child c;
  spawn(c, path);
  FastWrite fw = FastWrite::for_process(c.pid);
  const uint64_t buf = reinterpret_cast<uint64_t>(g_data);
  ASSERT_TRUE(fw.try_perform(SYS_write, args(c.null_fd, buf, 2)).has_value());  // cached: /dev/null
  // The child's null_fd becomes the file (what a dup2 in the tracee does);
  // the recorder sees that dup2 at its seccomp stop: before_syscall.
  ASSERT_EQ(kill(c.pid, SIGUSR1), 0);
  const std::string link = "/proc/" + std::to_string(c.pid) + "/fd/" + std::to_string(c.null_fd);
  char target[4096] = {};
  for (int i = 0; i < 500 && std::string(target) != path; ++i) {
    usleep(2000);
    ssize_t n = readlink(link.c_str(), target, sizeof target - 1);
    target[n > 0 ? n : 0] = 0;
  }
  ASSERT_EQ(std::string(target), path);
  fw.before_syscall(SYS_dup2, args(c.file_fd, c.null_fd));
  auto r = fw.try_perform(SYS_write, args(c.null_fd, buf, 5));
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(*r, 5);
  FILE* f = fopen(path.c_str(), "r");
  ASSERT_NE(f, nullptr);
  char back[32] = {};
  EXPECT_EQ(fread(back, 1, sizeof back - 1, f), 5u);  // not lost in /dev/null
  fclose(f);
  unlink(path.c_str());
}

}  // namespace
}  // namespace slsdbg::recorder
