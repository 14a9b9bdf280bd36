// slsdbg dump: an ELF core of the process as it was at one checkpoint,
// written straight from the store (engine/dump). Nothing is executed.

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "cli/binary_warnings.h"
#include "cli/checkpoint_options.h"
#include "cli/command.h"
#include "cli/member_option.h"
#include "cli/recording_dir.h"
#include "cli/stub_call_sites.h"
#include "engine/dump/checkpoint_pick.h"
#include "engine/dump/core_writer.h"
#include "engine/dump/recording_memory.h"
#include "store/pack_layout.h"
#include "store/recording.h"

namespace slsdbg::cli {
namespace {

const char kUsage[] =
    "usage: slsdbg dump REC [-p PID] (--at K | --time SECONDS | --last) [-o FILE]\n\n"
    "Writes an ELF core of the recorded process as it was at one checkpoint,\n"
    "read straight from the recording (nothing is run). Open it with\n"
    "`gdb PROGRAM FILE` or `lldb -c FILE PROGRAM`.\n\n"
    "  -p PID          the recorded process PID (default: the one record started)\n"
    "  --at K          checkpoint K (see `slsdbg info REC`)\n"
    "  --time SECONDS  the last checkpoint at or before SECONDS into the recording\n"
    "  --last          the last checkpoint\n"
    "  -o, --output FILE  output file (default: PROGRAM.K.core in the current\n"
    "                  directory); created with mode 0600 since it holds process memory\n"
    "  -q, --quiet     no progress or summary\n\n"
    "The core shows the process stopped by SIGSTOP at that checkpoint. Its uid,\n"
    "gid and parent pid are not recorded and read as 0 in NT_PRPSINFO.\n";

std::string base_name(const std::string& path) {
  auto slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// A progress line on a terminal, at most ten times a second.
class Progress {
 public:
  explicit Progress(bool enabled) : enabled_(enabled && ::isatty(STDERR_FILENO)) {}
  void update(const dump::CoreProgress& p) {
    if (!enabled_ || p.bytes_total < (64u << 20)) return;
    auto now = std::chrono::steady_clock::now();
    if (p.bytes_done != p.bytes_total && now - last_ < std::chrono::milliseconds(100)) return;
    last_ = now;
    std::fprintf(stderr, "\rdump: %llu / %llu MiB", static_cast<unsigned long long>(p.bytes_done >> 20),
                 static_cast<unsigned long long>(p.bytes_total >> 20));
    shown_ = true;
  }
  ~Progress() {
    if (shown_) std::fprintf(stderr, "\r\033[K");
  }

 private:
  bool enabled_;
  bool shown_ = false;
  std::chrono::steady_clock::time_point last_{};
};

int run_dump(const std::vector<std::string>& argv) {
  std::string rec, out;
  bool quiet = false;
  Options opts("dump");
  opts.recording(rec);
  MemberOption member;
  member.add(opts);
  CheckpointOptions which(opts);
  opts.text("-o,--output", out, "a file name");
  opts.flag("-q,--quiet", quiet);
  if (auto done = opts.parse(argv)) return *done;
  const auto pick = which.pick();
  if (!pick) return opts.usage_error(CheckpointOptions::kProblem);
  auto dir = member.resolve(rec);  // a path, `latest` or a name under $SLSDBG_DIR; -p: a member
  if (!dir.ok()) return fail("dump: " + dir.error().message);
  rec = *dir;
  auto reader = store::RecordingReader::open(rec);
  if (!reader.ok()) return fail("dump: " + reader.error().message);
  auto cp = dump::pick_checkpoint((*reader)->checkpoints(), *pick);
  if (!cp.ok()) return fail("dump: " + cp.error().message);
  auto state = (*reader)->process_state(cp->id);
  if (!state.ok()) return fail("dump: checkpoint " + std::to_string(cp->id.value) + ": " + state.error().message);

  if (out.empty()) {
    std::string prog = base_name(state->exe.empty() ? (*reader)->meta().program : state->exe);
    out = (prog.empty() ? std::string("slsdbg") : prog) + "." + std::to_string(cp->id.value) + ".core";
  }
  const bool packed = warn_about_binaries(**reader, "dump");
  dump::RecordingMemory memory(**reader, cp->id);
  show_at_stub_call_sites(*state, memory, **reader);
  dump::CoreOptions options;
  Progress progress(!quiet);
  options.progress = [&](const dump::CoreProgress& p) { progress.update(p); };
  auto summary = dump::write_core(*state, memory, out, options);
  if (!summary.ok())
    return fail("dump: checkpoint " + std::to_string(cp->id.value) + ": " + summary.error().message);
  if (!quiet)
    std::printf("wrote %s: checkpoint %llu at %.3f s, %u threads, %u mappings, %.1f MiB\n", out.c_str(),
                static_cast<unsigned long long>(cp->id.value), static_cast<double>(cp->time_ns) / 1e9,
                summary->threads, summary->load_segments, static_cast<double>(summary->file_size) / (1 << 20));
  // GDB finds the program and libraries of a packed recording in its pack
  // (-iex: the sysroot must be set before the core's libraries are loaded).
  if (!quiet && packed && !state->exe.empty())
    std::printf("open with: gdb -iex 'set sysroot %s' %s %s\n", store::pack_root(rec).c_str(),
                store::packed_or_original(rec, state->exe).c_str(), out.c_str());
  return 0;
}

Registrar reg({"dump", "write an ELF core of any checkpoint (gdb/lldb can open it)", kUsage, run_dump, 60});

}  // namespace
}  // namespace slsdbg::cli

