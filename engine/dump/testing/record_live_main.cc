// Test tool: records a real process into a real recording without the
// recorder, so `slsdbg dump` and `slsdbg backtrace` can be tested end to end
// on store files: every time PROGRAM stops itself with SIGSTOP, its full state
// and every readable page become the next checkpoint (the store dedups).
//
//   dump_record_live REC PROGRAM [ARGS...]
#include <signal.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/wait.h>

#include <chrono>
#include <cstdio>
#include <vector>

#include "engine/dump/core_notes.h"
#include "engine/dump/testing/live_process.h"
#include "store/recording.h"

using namespace slsdbg;

namespace {

int die(const std::string& msg) {
  std::fprintf(stderr, "dump_record_live: %s\n", msg.c_str());
  return 1;
}

Status add_checkpoint(store::RecordingWriter& writer, pid_t pid, uint64_t time_ns, const char* reason) {
  auto state = TRY(dump::testing::read_live_state(pid, {pid}));
  dump::testing::LiveMemory memory(pid);
  store::CheckpointInput in;
  in.time_ns = time_ns;
  std::vector<std::vector<uint8_t>> buffers;
  for (const auto& m : state.mappings) {
    if (!dump::mapping_has_contents(m) || m.path == "[vsyscall]") continue;
    buffers.emplace_back(m.end - m.start);
    TRY(memory.read(m.start, buffers.back()));
    for (uint64_t a = m.start; a < m.end; a += kPageSize)
      in.dirty.push_back(store::DirtyPage{a, buffers.back().data() + (a - m.start)});
  }
  in.state = std::move(state);
  TRY(writer.add_checkpoint(in, reason));
  return ok_status();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) return die("usage: dump_record_live REC PROGRAM [ARGS...]");
  std::vector<std::string> args(argv + 2, argv + argc);
  store::RecordingMeta meta;
  meta.program = args[0];
  meta.args = args;
  meta.tracker = "full-copy (dump_record_live test tool)";
  auto writer = store::RecordingWriter::create(argv[1], meta);
  if (!writer.ok()) return die(writer.error().message);
  auto start = std::chrono::steady_clock::now();
  auto pid = dump::testing::spawn_until_signal(args, SIGSTOP);
  if (!pid.ok()) return die(pid.error().message);
  for (;;) {
    uint64_t ns = static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start).count());
    auto st = add_checkpoint(**writer, *pid, ns, "signal");
    if (!st.ok()) {
      dump::testing::kill_traced(*pid);
      return die(st.error().message);
    }
    // Resume without delivering the SIGSTOP; wait for the next one or the end.
    int status = 0;
    int sig = 0;
    for (;;) {
      if (::ptrace(PTRACE_CONT, *pid, nullptr, reinterpret_cast<void*>(static_cast<long>(sig))) != 0)
        return die("PTRACE_CONT failed");
      if (::waitpid(*pid, &status, 0) < 0) return die("waitpid failed");
      if (WIFEXITED(status) || WIFSIGNALED(status)) {
        auto fin = (*writer)->finish();
        if (!fin.ok()) return die(fin.error().message);
        return 0;
      }
      sig = WSTOPSIG(status);
      if (sig == SIGSTOP) break;
    }
  }
}
