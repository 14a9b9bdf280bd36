// Checks restore on recordings made by the recorder (recorder::record_program,
// the engine of `slsdbg record`): the CPU-bound restore fixture is recorded
// with 10 ms checkpoints; its first, a middle and its second-to-last
// checkpoint are restored; each restored process equals its checkpoint
// (registers, map, every page) and, resumed natively, exits with the status
// of a native run.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "engine/restore/restore.h"
#include "engine/restore/restore_compare.h"
#include "recorder/record/record_session.h"
#include "store/recording.h"

namespace slsdbg::restore {
namespace {

namespace fs = std::filesystem;

std::string fixture() {
  const char* build = std::getenv("SLSDBG_BUILD_DIR");  // set by ctest
  return std::string(build ? build : ".") + "/tests/programs/restore_compute";
}

constexpr const char* kIterations = "100000000";

TEST(RestoreRecorded, CheckpointsOfARecordingResumeLikeTheNativeRun) {
  fs::path dir = fs::temp_directory_path() / ("restore_recorded_" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);

  recorder::RecordOptions ro;
  ro.argv = {fixture(), kIterations};
  ro.out_dir = (dir / "rec").string();
  auto outcome = recorder::record_program(ro);
  ASSERT_TRUE(outcome.ok()) << outcome.error().message;
  ASSERT_EQ(outcome->end, recorder::RecordOutcome::End::Exited);
  int native = outcome->exit_code;
  ASSERT_GE(native, 3);

  auto reader = store::RecordingReader::open(ro.out_dir);
  ASSERT_TRUE(reader.ok()) << reader.error().message;
  auto cps = (*reader)->checkpoints();
  ASSERT_GE(cps.size(), 3u);
  for (size_t i : {size_t(0), cps.size() / 2, cps.size() - 2}) {
    CheckpointId k = cps[i].id;
    SCOPED_TRACE("checkpoint " + std::to_string(k.value) + " of " + std::to_string(cps.size()));
    auto task = restore_checkpoint(**reader, k, RestoreOptions{});
    ASSERT_TRUE(task.ok()) << task.error().message;
    auto same = compare_with_checkpoint(*task, **reader, k);
    EXPECT_TRUE(same.ok()) << same.error().message;
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
  fs::remove_all(dir);
}

}  // namespace
}  // namespace slsdbg::restore
