// slsdbg ls: list the recordings in a directory.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "cli/command.h"
#include "cli/options.h"
#include "cli/recording_dir.h"
#include "common/signal_name.h"
#include "process/syscalls/fork_calls.h"
#include "store/members.h"
#include "store/recording.h"
#include "store/summary.h"

namespace slsdbg::cli {
namespace {

namespace fs = std::filesystem;

constexpr const char* kUsage =
    "usage: slsdbg ls [DIR] [--json]\n"
    "\n"
    "Lists the recordings in DIR (default: $SLSDBG_DIR or ~/.local/share/slsdbg):\n"
    "name, program, checkpoints, recorded time and state (with the number of\n"
    "child processes the program started, recorded in the same recording, or\n"
    "\"unrecorded\" for older recordings). A directory\n"
    "that is not a readable recording is listed with the reason.\n";

// The signal that killed the program, from the exit event in the last
// segments (the exit checkpoint ends the recording); 0 when it exited.
int fatal_signal(const store::RecordingReader& r) {
  const auto cps = r.checkpoints();
  for (size_t back = 0; back < 2 && back < cps.size(); back++) {
    auto evs = r.segment_events(segment_after(cps[cps.size() - 1 - back].id));
    if (!evs.ok()) continue;
    for (const auto& e : *evs)
      if (e.kind == store::EventKind::Exit) return e.signo;
  }
  return 0;
}

// Child processes the recorded one started (they ran unrecorded): the count
// the recorder stored at finish, else (an older or unfinished recording) one
// pass over the event log. In a --threads recording, a started tid that
// logged events of its own was a thread.
size_t children_started(const store::RecordingReader& r) {
  if (auto summary = store::read_summary(r); summary.ok())
    if (auto it = summary->find(store::kChildrenStartedKey); it != summary->end()) return it->second;
  std::vector<pid_t> started;
  std::set<pid_t> tids;
  for (const auto& c : r.checkpoints()) {
    auto evs = r.segment_events(segment_after(c.id));
    if (!evs.ok()) continue;
    for (const auto& e : *evs) {
      if (auto child = process::child_started_by(e)) started.push_back(*child);
      tids.insert(e.tid.value);
    }
  }
  if (!r.meta().threads) return started.size();
  return static_cast<size_t>(std::count_if(started.begin(), started.end(), [&](pid_t p) { return !tids.count(p); }));
}

int run_ls(const std::vector<std::string>& args) {
  std::string root;
  bool json = false;
  Options opts("ls");
  CLI::Option* given = opts.text("DIR", root, "DIR");
  opts.flag("--json", json);
  if (auto done = opts.parse(args)) return *done;
  if (!given->count()) root = recorder::recordings_root();
  std::error_code ec;
  if (!fs::is_directory(root, ec)) {
    if (!given->count()) {  // nothing recorded yet
      if (json) std::printf("[]\n");
      return kExitOk;
    }
    return fail("ls: " + root + " is not a directory");
  }
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(root, ec))
    if (e.is_directory() && !e.is_symlink() && fs::exists(e.path() / "catalog.db")) names.push_back(e.path().filename());
  std::sort(names.begin(), names.end());

  nlohmann::json out = nlohmann::json::array();
  if (!json) std::printf("%-24s %6s %10s  %-10s %s\n", "name", "ckpts", "time(s)", "state", "program");
  for (const auto& n : names) {
    const std::string path = root + "/" + n;
    auto reader = store::RecordingReader::open(path);
    if (!reader.ok()) {
      if (json) out.push_back({{"name", n}, {"path", path}, {"error", reader.error().message}});
      else std::printf("%-24s unreadable: %s\n", n.c_str(), reader.error().message.c_str());
      continue;
    }
    const auto cps = (*reader)->checkpoints();
    const double secs = cps.empty() ? 0.0 : cps.back().time_ns / 1e9;
    const auto& rep = (*reader)->open_report();
    std::string state = rep.finished ? "finished" : (rep.writer_active ? "recording" : "incomplete");
    if (rep.finished) {
      const int signo = fatal_signal(**reader);
      if (signo) state = "crashed (" + signal_name(signo) + ")";
    }
    const size_t children = children_started(**reader);
    // Recorded as members (store/members.h) unless the tree has none.
    const bool members = fs::exists(store::members_dir(path));
    if (children) state += ", children " + std::to_string(children) + (members ? " (recorded)" : " (unrecorded)");
    std::string argv;
    for (const auto& a : (*reader)->meta().args) argv += (argv.empty() ? "" : " ") + a;
    if (json)
      out.push_back({{"name", n}, {"path", path}, {"program", (*reader)->meta().program}, {"checkpoints", cps.size()},
                     {"seconds", secs}, {"state", state}, {"children", children}});
    else
      std::printf("%-24s %6zu %10.3f  %-10s %s\n", n.c_str(), cps.size(), secs, state.c_str(), argv.c_str());
  }
  if (json) std::printf("%s\n", out.dump(2).c_str());
  return 0;
}

Registrar reg({"ls", "list recordings", kUsage, run_ls, 20});

}  // namespace
}  // namespace slsdbg::cli
