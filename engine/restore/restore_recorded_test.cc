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
#include <memory>
#include <string>
#include <vector>

#include "engine/restore/restore.h"
#include "engine/restore/restore_compare.h"
#include "recorder/record/record_session.h"
#include "store/recording.h"

namespace slsdbg::restore {
namespace {

namespace fs = std::filesystem;

std::string fixture(const char* name = "restore_compute") {
  const char* build = std::getenv("SLSDBG_BUILD_DIR");  // set by ctest
  return std::string(build ? build : ".") + "/tests/programs/" + name;
}

constexpr const char* kIterations = "100000000";

// The fixture recorded into a fresh directory `name` under /tmp: its
// reader (null, with the test failed, if that did not work) and the exit
// code of the recorded run.
struct Recorded {
  fs::path dir;
  int exit_code = -1;
  std::unique_ptr<store::RecordingReader> reader;
};

void record_fixture(const std::string& name, Recorded& out, std::vector<std::string> argv = {fixture(), kIterations}) {
  out.dir = fs::temp_directory_path() / (name + "_" + std::to_string(getpid()));
  fs::remove_all(out.dir);
  fs::create_directories(out.dir);
  recorder::RecordOptions ro;
  ro.argv = std::move(argv);
  ro.threads = true;  // as `slsdbg record`
  ro.out_dir = (out.dir / "rec").string();
  auto outcome = recorder::record_program(ro);
  ASSERT_TRUE(outcome.ok()) << outcome.error().message;
  ASSERT_EQ(outcome->end, recorder::RecordOutcome::End::Exited);
  out.exit_code = outcome->exit_code;
  auto reader = store::RecordingReader::open(ro.out_dir);
  ASSERT_TRUE(reader.ok()) << reader.error().message;
  out.reader = std::move(*reader);
}

TEST(RestoreRecorded, CheckpointsOfARecordingResumeLikeTheNativeRun) {
  Recorded rec;
  record_fixture("restore_recorded", rec);
  ASSERT_TRUE(rec.reader);
  const fs::path dir = rec.dir;
  const int native = rec.exit_code;
  ASSERT_GE(native, 3);
  auto cps = rec.reader->checkpoints();
  ASSERT_GE(cps.size(), 3u);
  for (size_t i : {size_t(0), cps.size() / 2, cps.size() - 2}) {
    CheckpointId k = cps[i].id;
    SCOPED_TRACE("checkpoint " + std::to_string(k.value) + " of " + std::to_string(cps.size()));
    auto task = restore_checkpoint(*rec.reader, k, RestoreOptions{});
    ASSERT_TRUE(task.ok()) << task.error().message;
    auto same = compare_with_checkpoint(*task, *rec.reader, k);
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

// A file mapping's pages are compared with the file once per process; later
// restores compare only the pages the store holds (memory_fill.cc), and
// still restore every page: a middle checkpoint twice, then checkpoint 0
// (whose libc text lacks the recorder's later patches, compared again).
TEST(RestoreRecorded, SecondRestoreComparesOnlyHeldFilePages) {
  Recorded rec;
  record_fixture("restore_recorded_held", rec);
  ASSERT_TRUE(rec.reader);
  const fs::path dir = rec.dir;
  auto cps = rec.reader->checkpoints();
  ASSERT_GE(cps.size(), 3u);
  std::vector<uint64_t> compared;
  for (size_t i : {cps.size() / 2, cps.size() / 2, size_t(0)}) {
    CheckpointId k = cps[i].id;
    SCOPED_TRACE("checkpoint " + std::to_string(k.value));
    RestoreReport report;
    RestoreOptions options;
    options.report = &report;
    auto task = restore_checkpoint(*rec.reader, k, std::move(options));
    ASSERT_TRUE(task.ok()) << task.error().message;
    auto same = compare_with_checkpoint(*task, *rec.reader, k);
    EXPECT_TRUE(same.ok()) << same.error().message;
    compared.push_back(report.timings.pages_same_as_file);
    task->kill_and_reap();
  }
  EXPECT_GE(compared[0], 100u) << "the first restore compares every page of the file mappings";
  EXPECT_LT(compared[1] * 4, compared[0]) << "the second compared " << compared[1] << " of " << compared[0];
  EXPECT_LT(compared[2] * 4, compared[0]) << "checkpoint 0 compared " << compared[2] << " of " << compared[0];
  fs::remove_all(dir);
}

// An anonymous mapping is restored from the pages the store holds in it,
// not by reading each of its pages (memory_fill.cc): the two workers' 8 MiB
// stacks are ~4,000 pages the store never held, none of them read, and the
// restored process still equals its checkpoint page for page.
TEST(RestoreRecorded, AnonymousMappingsReadOnlyHeldPages) {
  Recorded rec;
  record_fixture("restore_recorded_anon", rec, {fixture("thr_restore")});
  ASSERT_TRUE(rec.reader);
  const fs::path dir = rec.dir;
  auto cps = rec.reader->checkpoints();
  ASSERT_GE(cps.size(), 3u);
  CheckpointId k = cps[cps.size() / 2].id;
  auto state = rec.reader->process_state(k);
  ASSERT_TRUE(state.ok()) << state.error().message;
  ASSERT_GE(state->threads.size(), 3u) << "checkpoint " << k.value << " holds the workers";
  RestoreReport report;
  std::vector<RestoredThread> threads;
  RestoreOptions options;
  options.report = &report;
  options.threads = &threads;
  auto task = restore_checkpoint(*rec.reader, k, std::move(options));
  ASSERT_TRUE(task.ok()) << task.error().message;
  EXPECT_EQ(threads.size() + 1, state->threads.size());
  auto same = compare_with_checkpoint(*task, *rec.reader, k);
  EXPECT_TRUE(same.ok()) << same.error().message;
  task->kill_and_reap();
  EXPECT_LT(report.timings.pages_skipped_zero, 1000u) << "zero pages read and skipped";
  fs::remove_all(dir);
}

}  // namespace
}  // namespace slsdbg::restore
