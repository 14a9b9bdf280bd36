// Checks restore on real processes: a CPU-bound fixture checkpointed mid-loop
// (`slsdbg record --interval 80`) is restored; the restored registers, memory map and every page equal the
// recording's; resumed, it ends with the exit status of a native run. Bad
// input: a checkpoint out of range and a missing restorer are errors. The same
// holds with lazy fill (userfaultfd), which must not write memory eagerly.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "engine/restore/lazy_fill.h"
#include "engine/restore/restore.h"
#include "engine/restore/restore_compare.h"
#include "store/recording.h"

namespace slsdbg::restore {
namespace {

namespace fs = std::filesystem;

std::string build_dir() {
  const char* build = std::getenv("SLSDBG_BUILD_DIR");  // set by ctest
  return build ? build : ".";
}
std::string fixture() { return build_dir() + "/tests/programs/restore_compute"; }

constexpr const char* kIterations = "40000000";

int native_exit_status() {
  pid_t pid = fork();
  if (pid == 0) {
    int null = open("/dev/null", O_WRONLY);
    dup2(null, 1);
    execl(fixture().c_str(), fixture().c_str(), kIterations, (char*)nullptr);
    _exit(127);
  }
  int st = 0;
  waitpid(pid, &st, 0);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

class RestoreLive : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new fs::path(fs::temp_directory_path() / ("restore_live_" + std::to_string(getpid())));
    fs::remove_all(*dir_);
    fs::create_directories(*dir_);
    // Checkpoint 0 at exec, 1 after 150 ms of the loop, ..., the last at exit.
    const std::string cmd = build_dir() + "/cli/slsdbg record -o " + (*dir_ / "rec").string() + " --interval 80 -- " +
                            fixture() + " " + kIterations + " >/dev/null 2>" + (*dir_ / "rec.err").string();
    const int st = std::system(cmd.c_str());
    ASSERT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == native_exit_status()) << cmd << ": status " << st;
    auto rd = reader();
    ASSERT_TRUE(rd);
    ASSERT_GE(rd->checkpoints().size(), 3u) << "want checkpoint 1 before the one at exit";
  }
  static void TearDownTestSuite() {
    fs::remove_all(*dir_);
    delete dir_;
  }
public:
  static std::unique_ptr<store::RecordingReader> reader() {
    auto r = store::RecordingReader::open((*dir_ / "rec").string());
    EXPECT_TRUE(r.ok()) << r.error().message;
    return r.ok() ? std::move(*r) : nullptr;
  }
  static fs::path* dir_;
};
void run_to_end_like_native(FillMode mode);
fs::path* RestoreLive::dir_ = nullptr;

TEST_F(RestoreLive, RegistersMapAndEveryPageEqualTheCheckpoint) {
  auto rd = reader();
  ASSERT_TRUE(rd);
  for (uint64_t k : {0, 1}) {
    RestoreReport report;
    RestoreOptions opt;
    opt.report = &report;
    auto task = restore_checkpoint(*rd, CheckpointId(k), opt);
    ASSERT_TRUE(task.ok()) << task.error().message;
    auto same = compare_with_checkpoint(*task, *rd, CheckpointId(k));
    EXPECT_TRUE(same.ok()) << "checkpoint " << k << ": " << same.error().message;
    if (same.ok()) {
      EXPECT_GT(same->pages_compared, k == 0 ? 20u : 512u);  // at 1: the 2 MiB heap too
      EXPECT_GT(same->mappings_compared, 5u);
    }
    EXPECT_GT(report.timings.bytes_written, 0u);
    task->kill_and_reap();
  }
}

void run_to_end_like_native(FillMode mode) {
  int native = native_exit_status();
  ASSERT_GE(native, 3);
  auto rd = RestoreLive::reader();
  ASSERT_TRUE(rd);
  LazyFiller filler;
  RestoreOptions opt;
  opt.fill = mode;
  opt.lazy = &filler;
  auto task = restore_checkpoint(*rd, CheckpointId(1), opt);
  ASSERT_TRUE(task.ok()) << task.error().message;
  ASSERT_TRUE(task->cont().ok());
  for (;;) {
    auto w = task->wait();
    ASSERT_TRUE(w.ok()) << w.error().message;
    if (w->kind == process::StopKind::Exited) {
      EXPECT_EQ(w->exit_code, native);
      break;
    }
    ASSERT_NE(w->kind, process::StopKind::Killed) << "killed by signal " << w->signo;
    ASSERT_TRUE(task->cont(w->kind == process::StopKind::SignalDelivery ? w->signo : 0).ok());
  }
}

TEST_F(RestoreLive, ResumedProcessEndsLikeANativeRun) { run_to_end_like_native(FillMode::Eager); }

TEST_F(RestoreLive, LazilyFilledProcessEndsLikeANativeRun) { run_to_end_like_native(FillMode::Lazy); }

TEST_F(RestoreLive, LazyFillWritesLittleAndStillEqualsTheCheckpoint) {
  auto rd = reader();
  ASSERT_TRUE(rd);
  RestoreReport eager_report, lazy_report;
  {
    RestoreOptions opt;
    opt.report = &eager_report;
    auto task = restore_checkpoint(*rd, CheckpointId(1), opt);
    ASSERT_TRUE(task.ok()) << task.error().message;
    task->kill_and_reap();
  }
  LazyFiller filler;
  RestoreOptions opt;
  opt.report = &lazy_report;
  opt.fill = FillMode::Lazy;
  opt.lazy = &filler;
  auto task = restore_checkpoint(*rd, CheckpointId(1), opt);
  ASSERT_TRUE(task.ok()) << task.error().message;
  // The heap (2 MiB of state) is not written before restore returns.
  EXPECT_LT(lazy_report.timings.bytes_written + (1u << 20), eager_report.timings.bytes_written);
  auto same = compare_with_checkpoint(*task, *rd, CheckpointId(1));  // faults served by the filler
  EXPECT_TRUE(same.ok()) << same.error().message;
  filler.wait_filled();
  EXPECT_GT(filler.stats().pages_copied, 256u);
  task->kill_and_reap();
}

TEST_F(RestoreLive, OutOfRangeCheckpointIsAnError) {
  auto rd = reader();
  ASSERT_TRUE(rd);
  auto task = restore_checkpoint(*rd, CheckpointId(99999), RestoreOptions{});
  ASSERT_FALSE(task.ok());
  EXPECT_NE(task.error().message.find("checkpoint 99999 out of range"), std::string::npos) << task.error().message;
}

TEST_F(RestoreLive, MissingRestorerIsAnError) {
  auto rd = reader();
  ASSERT_TRUE(rd);
  RestoreOptions opt;
  opt.restorer_path = "/nonexistent/slsdbg-restorer";
  auto task = restore_checkpoint(*rd, CheckpointId(0), opt);
  ASSERT_FALSE(task.ok());
  EXPECT_NE(task.error().message.find("restorer not found"), std::string::npos) << task.error().message;
}

}  // namespace
}  // namespace slsdbg::restore
