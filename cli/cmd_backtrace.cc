// slsdbg backtrace: unwind every thread at one checkpoint straight from the
// store (libunwind over the recorded memory), symbolize from the mapped ELF
// files (the recording's pack first), and optionally disassemble around the
// pc (Capstone).

#include <cstdio>
#include <cstdlib>
#include <string>

#include "cli/binary_warnings.h"
#include "cli/checkpoint_options.h"
#include "cli/command.h"
#include "cli/member_option.h"
#include "cli/recording_dir.h"
#include "cli/stub_call_sites.h"
#include "engine/dump/backtrace.h"
#include "engine/dump/checkpoint_pick.h"
#include "engine/dump/recording_memory.h"
#include "store/recording.h"

namespace slsdbg::cli {
namespace {

const char kUsage[] =
    "usage: slsdbg backtrace REC [-p PID] (--at K | --time SECONDS | --last) [--disasm] [--json]\n\n"
    "Prints the call stack of every thread at checkpoint K, unwound from the\n"
    "recording itself (no process runs), with FILE:LINE where debug info exists.\n\n"
    "  -p PID     the recorded process PID (default: the one record started)\n"
    "  --at K     checkpoint K (see `slsdbg info REC`)\n"
    "  --time S   the last checkpoint at or before S seconds into the recording\n"
    "  --last     the last checkpoint\n"
    "  --disasm   also disassemble around each thread's pc\n"
    "  --json     one JSON object: checkpoint, time_ns, threads[].frames[] (and disasm[])\n"
    "Inlined frames are not shown (one frame per physical call).\n";

int run_backtrace(const std::vector<std::string>& args) {
  std::string rec;
  bool json = false, want_disasm = false;
  Options opts("backtrace");
  opts.recording(rec);
  MemberOption member;
  member.add(opts);
  CheckpointOptions which(opts);
  opts.flag("--disasm", want_disasm);
  opts.flag("--json", json);
  if (auto done = opts.parse(args)) return *done;
  const auto pick = which.pick();
  if (!pick) return opts.usage_error(CheckpointOptions::kProblem);
  const dump::Disasm disasm = want_disasm ? dump::Disasm::Yes : dump::Disasm::No;

  auto dir = member.resolve(rec);  // a path, `latest` or a name under $SLSDBG_DIR; -p: a member
  if (!dir.ok()) return fail("backtrace: " + dir.error().message);
  rec = *dir;
  auto reader = store::RecordingReader::open(rec);
  if (!reader.ok()) return fail("backtrace: " + reader.error().message);
  auto cp = dump::pick_checkpoint((*reader)->checkpoints(), *pick);
  if (!cp.ok()) return fail("backtrace: " + cp.error().message);
  auto state = (*reader)->process_state(cp->id);
  if (!state.ok()) return fail("backtrace: checkpoint " + std::to_string(cp->id.value) + ": " + state.error().message);
  warn_about_binaries(**reader, "backtrace");
  dump::RecordingMemory memory(**reader, cp->id);
  show_at_stub_call_sites(*state, memory, **reader);
  auto threads = dump::backtrace_threads(*state, memory, disasm, rec);
  if (json) {
    std::string header = "{\"checkpoint\":" + std::to_string(cp->id.value) +
                         ",\"time_ns\":" + std::to_string(cp->time_ns) + "}";
    std::fputs(dump::format_json(threads, header).c_str(), stdout);
  } else {
    std::printf("checkpoint %llu at %.3f s\n", static_cast<unsigned long long>(cp->id.value),
                static_cast<double>(cp->time_ns) / 1e9);
    std::fputs(dump::format_text(threads).c_str(), stdout);
  }
  for (const auto& t : threads)
    if (t.frames.empty()) return fail("backtrace: thread " + std::to_string(t.tid.value) + ": " + t.error);
  return 0;
}

Registrar reg({"backtrace", "call stacks of any checkpoint, from the recording", kUsage, run_backtrace, 61});

}  // namespace
}  // namespace slsdbg::cli

