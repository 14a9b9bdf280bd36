// Checks spawn_traced: a real program starts stopped at its exec event, and
// programs that cannot run give a one-line "cannot execute" error without
// leaving a zombie.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include "process/spawn.h"
#include "process/test_tracee.h"

namespace slsdbg::process {
namespace {

TEST(Spawn, StopsAtExecEventOfTheNewProgram) {
  auto task = spawn_traced(SpawnOptions{{testing::fixture_path("capture_pages")}, {}, {}});
  ASSERT_TRUE(task.ok()) << task.error().message;
  EXPECT_EQ(task->last_stop().kind, StopKind::PtraceEvent);
  EXPECT_EQ(task->last_stop().event, PTRACE_EVENT_EXEC);
  char exe[4096] = {};
  ASSERT_GT(readlink(("/proc/" + std::to_string(task->tgid()) + "/exe").c_str(), exe, sizeof exe - 1), 0);
  EXPECT_NE(std::string(exe).find("capture_pages"), std::string::npos);
  task->kill_and_reap();
  EXPECT_EQ(task->last_stop().kind, StopKind::Killed);
}

TEST(Spawn, HookRunsInTheChildBeforeExec) {
  SpawnOptions opts{{testing::fixture_path("capture_pages")}, {}, {}};
  opts.in_child_before_exec = [] { return Error::msg("hook says no"); };
  auto task = spawn_traced(opts);
  ASSERT_FALSE(task.ok());
  EXPECT_NE(task.error().message.find("hook says no"), std::string::npos) << task.error().message;
}

TEST(Spawn, MissingProgramIsAnErrorAndLeavesNoZombie) {
  auto task = spawn_traced(SpawnOptions{{"/nonexistent/slsdbg-no-such-program"}, {}, {}});
  ASSERT_FALSE(task.ok());
  EXPECT_EQ(task.error().message, "cannot execute /nonexistent/slsdbg-no-such-program: No such file or directory");
  EXPECT_EQ(task.error().errno_value, ENOENT);
  int st;
  EXPECT_EQ(waitpid(-1, &st, WNOHANG | __WALL), -1);
  EXPECT_EQ(errno, ECHILD);
}

TEST(Spawn, NonExecutableFileIsAnError) {
  const char* src = std::getenv("SLSDBG_SOURCE_DIR");
  ASSERT_NE(src, nullptr) << "SLSDBG_SOURCE_DIR is not set (run through ctest)";
  std::string path = std::string(src) + "/tests/programs/capture_not_executable.txt";
  auto task = spawn_traced(SpawnOptions{{path}, {}, {}});
  ASSERT_FALSE(task.ok());
  EXPECT_EQ(task.error().message, "cannot execute " + path + ": Permission denied");
}

TEST(Spawn, EmptyArgvIsAnError) {
  auto task = spawn_traced(SpawnOptions{});
  ASSERT_FALSE(task.ok());
  EXPECT_EQ(task.error().message, "spawn: no program given");
}

}  // namespace
}  // namespace slsdbg::process
