// Test tool: like dump_record_live, but each checkpoint is taken by the
// recorder's own checkpoint capture (recorder/capture: dirty-page tracking,
// its register/map/signal capture), so dumps are checked on exactly what the
// recorder stores. Every time PROGRAM stops itself with SIGSTOP, one checkpoint.
//
//   dump_record_captured REC PROGRAM [ARGS...]
#include <signal.h>

#include <chrono>
#include <cstdio>

#include "recorder/capture/checkpoint_capture.h"
#include "recorder/process/spawn.h"
#include "store/recording.h"

using namespace slsdbg;

namespace {

int die(const std::string& msg) {
  std::fprintf(stderr, "dump_record_captured: %s\n", msg.c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) return die("usage: dump_record_captured REC PROGRAM [ARGS...]");
  std::vector<std::string> args(argv + 2, argv + argc);
  auto task = process::spawn_traced(process::SpawnOptions{args, {}, {}});
  if (!task.ok()) return die(task.error().message);
  auto capture = recorder::CheckpointCapture::create(task->raw_tid(), recorder::TrackerChoice::Auto);
  if (!capture.ok()) {
    task->kill_and_reap();
    return die(capture.error().message);
  }
  store::RecordingMeta meta;
  meta.program = args[0];
  meta.args = args;
  meta.tracker = (*capture)->tracker_name();
  auto writer = store::RecordingWriter::create(argv[1], meta);
  if (!writer.ok()) {
    task->kill_and_reap();
    return die(writer.error().message);
  }
  auto start = std::chrono::steady_clock::now();
  int deliver = 0;
  for (;;) {
    auto st = task->cont(deliver);
    if (!st.ok()) return die(st.error().message);
    deliver = 0;
    auto w = task->wait();
    if (!w.ok()) return die(w.error().message);
    if (!w->stopped()) break;
    if (w->kind != process::StopKind::SignalDelivery) continue;
    if (w->signo != SIGSTOP) {
      deliver = w->signo;
      continue;
    }
    auto in = (*capture)->capture({task->raw_tid()});
    if (!in.ok()) {
      task->kill_and_reap();
      return die(in.error().message);
    }
    in->time_ns = static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start).count());
    auto k = (*writer)->add_checkpoint(*in, "signal");
    if (!k.ok()) {
      task->kill_and_reap();
      return die(k.error().message);
    }
  }
  auto fin = (*writer)->finish();
  if (!fin.ok()) return die(fin.error().message);
  return 0;
}
