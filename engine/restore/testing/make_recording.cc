#include "engine/restore/testing/make_recording.h"

#include <unistd.h>

#include <thread>

#include "recorder/capture/checkpoint_capture.h"
#include "recorder/process/spawn.h"
#include "store/recording.h"

namespace slsdbg::restore::testing {

namespace {

// Runs the task for `ms`, then stops it with PTRACE_INTERRUPT. Signal stops on
// the way are delivered; the program ending first is an error.
Status run_for(process::Task& task, unsigned ms) {
  TRY(task.cont());
  std::this_thread::sleep_for(std::chrono::milliseconds(ms));
  TRY(task.interrupt());
  for (;;) {
    process::WaitResult w = TRY(task.wait());
    if (!w.stopped()) return Error::msg("the program ended before the checkpoint after " + std::to_string(ms) + " ms");
    if (w.kind == process::StopKind::PtraceEvent && w.event == PTRACE_EVENT_STOP) return ok_status();
    TRY(task.cont(w.kind == process::StopKind::SignalDelivery ? w.signo : 0));
  }
}

}  // namespace

Result<size_t> make_recording_by_capture(const CaptureRun& run) {
  if (run.delays_ms.empty()) return Error::msg("no checkpoints requested");
  process::SpawnOptions spawn;
  spawn.argv = run.argv;
  process::Task task = TRY(process::spawn_traced(spawn));
  auto finish = [&](Result<size_t> r) {
    task.kill_and_reap();
    return r;
  };
  auto capture = recorder::CheckpointCapture::create(task.tgid(), recorder::TrackerChoice::Auto);
  if (!capture.ok()) return finish(capture.take_error());
  store::RecordingMeta meta;
  meta.program = run.argv.front();
  meta.args = run.argv;
  char cwd[4096];
  if (::getcwd(cwd, sizeof cwd)) meta.cwd = cwd;
  meta.tracker = (*capture)->tracker_name();
  auto writer = store::RecordingWriter::create(run.out_dir, meta);
  if (!writer.ok()) return finish(writer.take_error());

  size_t written = 0;
  for (size_t i = 0; i < run.delays_ms.size(); i++) {
    if (i > 0 || run.delays_ms[i] > 0) {
      Status ran = run_for(task, run.delays_ms[i]);
      if (!ran.ok()) return finish(ran.take_error());
    }
    auto input = (*capture)->capture({task.tgid()});
    if (!input.ok()) return finish(input.take_error().context("capturing checkpoint " + std::to_string(i)));
    auto id = (*writer)->add_checkpoint(*input, i == 0 ? "start" : "tick");
    if (!id.ok()) return finish(id.take_error());
    written++;
  }
  Status fin = (*writer)->finish();
  if (!fin.ok()) return finish(fin.take_error());
  return finish(written);
}

}  // namespace slsdbg::restore::testing
