// slsdbg info: what a recording holds (checkpoints, events, tracker, stop times).
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <optional>
#include <set>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli/command.h"
#include "cli/member_option.h"
#include "cli/options.h"
#include "cli/process_tree.h"
#include "cli/recording_dir.h"
#include "common/signal_name.h"
#include "process/syscallbuf_stub.h"
#include "process/syscalls/fork_calls.h"
#include "store/group_cuts.h"
#include "store/recording.h"
#include "store/summary.h"

namespace slsdbg::cli {
namespace {

constexpr const char* kUsage =
    "usage: slsdbg info REC [-p PID] [--json]\n"
    "\n"
    "Shows a recording: program, tracker, each checkpoint (id, time, dirty\n"
    "pages, stop time, reason, events in the segment after it), event totals by\n"
    "kind, stop-time percentiles, how far the interval stretched for a program\n"
    "rewriting its memory (up to `record --max-interval`), and whether it had to\n"
    "stretch beyond because the recorder could not keep up. REC is a path or a name under\n"
    "$SLSDBG_DIR (or ~/.local/share/slsdbg), e.g. `latest`. A recording of a\n"
    "process tree also lists its processes: pid, parent, program, how its\n"
    "history starts (spawn, fork, exec), checkpoints and exit.\n"
    "  -p PID   show the recorded process PID of the tree instead of the root\n"
    "  --json   one JSON object (checkpoints[] with id, time_ns, dirty_pages,\n"
    "           stop_us, reason, segment_events; events; events_by_kind;\n"
    "           children: pids of the child processes it started;\n"
    "           processes[]: pid, parent, program, origin, checkpoints, exit,\n"
    "           path of every process of the tree; group_cuts[]: id and\n"
    "           members[] (pid, checkpoint) of each consistent cut of the tree;\n"
    "           ...)\n";

const char* kind_name(store::EventKind k) {
  switch (k) {
    case store::EventKind::Syscall: return "syscall";
    case store::EventKind::Signal: return "signal";
    case store::EventKind::Rdtsc: return "rdtsc";
    case store::EventKind::ForcedCheckpoint: return "forced_checkpoint";
    case store::EventKind::Exit: return "exit";
    case store::EventKind::ThreadSwitch: return "thread_switch";
  }
  return "unknown";
}

double percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t idx = static_cast<size_t>(p / 100.0 * (v.size() - 1) + 0.5);
  return v[std::min(idx, v.size() - 1)];
}

int run_info(const std::vector<std::string>& args) {
  std::string rec;
  bool json = false;
  Options opts("info");
  opts.recording(rec);
  MemberOption member;
  member.add(opts);
  opts.flag("--json", json);
  if (auto done = opts.parse(args)) return *done;
  auto dir = member.resolve(rec);
  if (!dir.ok()) return fail("info: " + dir.error().message);
  // The tree, as the root's recording holds it (a member has none of its own).
  std::vector<ProcessRow> tree;
  if (auto t = process_tree(*dir); t.ok() && t->size() > 1) tree = std::move(*t);
  // The tree's consistent cuts (store/group_cuts.h), in the root's directory.
  std::vector<store::GroupCut> cuts;
  if (!tree.empty()) {
    auto c = store::read_group_cuts(*dir);
    if (!c.ok()) return fail("info: " + c.error().message);
    cuts = std::move(*c);
  }
  auto reader = store::RecordingReader::open(*dir);
  if (!reader.ok()) return fail("info: " + reader.error().message);
  const auto& r = **reader;
  const store::RecordingMeta& meta = r.meta();
  const store::OpenReport& report = r.open_report();
  const auto cps = r.checkpoints();

  std::map<std::string, uint64_t> by_kind;
  uint64_t total_events = 0;
  nlohmann::json exit_info = nullptr;
  std::vector<pid_t> children;  // started by the recorded process; not recorded
  std::set<pid_t> tids;         // threads that logged an event (record --threads)
  bool open_segment_unreadable = false;
  for (const auto& c : cps) {
    auto evs = r.segment_events(segment_after(c.id));
    if (!evs.ok()) {
      // The segment after the newest checkpoint is still open (or torn) when
      // the writer is running or died: its events are not committed yet.
      if (c.id == cps.back().id && !report.finished) {
        open_segment_unreadable = true;
        continue;
      }
      return fail("info: " + *dir + ": segment " + std::to_string(c.id.value) + ": " + evs.error().message);
    }
    for (const auto& e : *evs) {
      by_kind[kind_name(e.kind)]++;
      total_events++;
      if (e.tid.value > 0) tids.insert(e.tid.value);
      if (auto child = process::child_started_by(e)) children.push_back(*child);
      if (e.kind == store::EventKind::Exit) {
        exit_info = e.signo ? nlohmann::json{{"signal", e.signo}} : nlohmann::json{{"status", e.exit_status}};
      }
    }
  }

  // A --threads recording's clone results are its threads, not children.
  if (meta.threads)
    children.erase(std::remove_if(children.begin(), children.end(), [&](pid_t p) { return tids.count(p) != 0; }),
                   children.end());

  // The adaptive interval (recorder/record/interval_policy.h): its bound and
  // what it reached, from the summary written at the end (absent in older
  // or unfinished recordings: then the bound is taken as the interval).
  std::map<std::string, uint64_t> summary;
  if (auto s = store::read_summary(r); s.ok()) summary = std::move(*s);
  auto summary_value = [&](const char* key) -> std::optional<uint64_t> {
    auto it = summary.find(key);
    return it == summary.end() ? std::nullopt : std::optional<uint64_t>(it->second);
  };
  const std::optional<uint64_t> max_interval = summary_value(store::kMaxIntervalKey);
  const std::optional<uint64_t> sysbuf_stub = summary_value(process::kSysbufStubSummaryKey);  // the buffer was on
  const uint64_t bound_ns = std::max(meta.interval_ns, max_interval.value_or(0));
  const uint64_t adaptive_ticks = summary_value(store::kStretchedTicksKey).value_or(0);
  const uint64_t longest_ns = summary_value(store::kLongestIntervalKey).value_or(0);

  // Gaps between consecutive checkpoints well beyond the bound mean the
  // recorder had to wait (store back-pressure or a stop that took long).
  std::vector<double> stops_us;
  uint64_t stretched = 0, max_gap_ns = 0;
  for (size_t i = 0; i < cps.size(); i++) {
    stops_us.push_back(cps[i].stop_ns / 1000.0);
    if (i == 0 || cps[i].reason != "tick") continue;
    const uint64_t gap = cps[i].time_ns - cps[i - 1].time_ns;
    max_gap_ns = std::max(max_gap_ns, gap);
    if (gap > bound_ns * 3 / 2) stretched++;
  }

  if (json) {
    nlohmann::json j;
    j["path"] = *dir;
    j["program"] = meta.program;
    j["args"] = meta.args;
    j["tracker"] = meta.tracker;
    j["interval_ns"] = meta.interval_ns;
    j["finished"] = report.finished;
    j["torn_tail"] = report.torn_tail ? nlohmann::json(*report.torn_tail) : nlohmann::json(nullptr);
    j["exit"] = exit_info;
    j["last_segment_open"] = open_segment_unreadable;
    j["children"] = children;
    if (meta.threads) j["threads"] = tids.size();
    j["syscall_buffer"] = sysbuf_stub ? nlohmann::json(*sysbuf_stub) : nlohmann::json(nullptr);
    if (meta.pid > 0) {
      j["pid"] = meta.pid;
      j["parent_pid"] = meta.parent_pid;
      j["origin"] = meta.origin;
    }
    j["processes"] = process_tree_json(tree);
    nlohmann::json cut_arr = nlohmann::json::array();
    for (const store::GroupCut& c : cuts) {
      nlohmann::json ms = nlohmann::json::array();
      for (const store::CutMember& m : c.members) ms.push_back({{"pid", m.pid}, {"checkpoint", m.checkpoint}});
      cut_arr.push_back({{"id", c.id}, {"members", ms}});
    }
    j["group_cuts"] = cut_arr;
    nlohmann::json arr = nlohmann::json::array();
    for (const auto& c : cps)
      arr.push_back({{"id", c.id.value},
                     {"time_ns", c.time_ns},
                     {"dirty_pages", c.dirty_pages},
                     {"stop_us", c.stop_ns / 1000.0},
                     {"reason", c.reason},
                     {"segment_events", c.segment_events}});
    j["checkpoints"] = arr;
    j["events"] = total_events;
    j["events_by_kind"] = by_kind;
    j["stop_us"] = {{"p50", percentile(stops_us, 50)}, {"p99", percentile(stops_us, 99)},
                    {"max", stops_us.empty() ? 0.0 : *std::max_element(stops_us.begin(), stops_us.end())}};
    j["interval_stretch"] = {{"stretched_ticks", stretched}, {"max_gap_ns", max_gap_ns}};
    j["adaptive_interval"] = {{"max_interval_ns", max_interval ? nlohmann::json(*max_interval) : nlohmann::json(nullptr)},
                              {"longest_interval_ns", longest_ns},
                              {"stretched_ticks", adaptive_ticks}};
    std::printf("%s\n", j.dump(2).c_str());
    return 0;
  }

  std::printf("recording  %s\n", dir->c_str());
  std::string argv;
  for (const auto& a : meta.args) argv += (argv.empty() ? "" : " ") + a;
  std::printf("program    %s\n", argv.c_str());
  std::printf("tracker    %s\n", meta.tracker.c_str());
  if (bound_ns > meta.interval_ns)
    std::printf("interval   %.1f ms, adaptive up to %.1f ms: %s\n", meta.interval_ns / 1e6, bound_ns / 1e6,
                adaptive_ticks ? ("stretched for " + std::to_string(adaptive_ticks) + " ticks, longest " +
                                  std::to_string(static_cast<uint64_t>(longest_ns / 1e6 + 0.5)) + " ms")
                                     .c_str()
                               : "never stretched");
  else
    std::printf("interval   %.1f ms\n", meta.interval_ns / 1e6);
  std::printf("state      %s%s\n", report.finished ? "finished" : "not finished (writer died or still running)",
              report.torn_tail ? (", torn tail ignored: " + *report.torn_tail).c_str() : "");
  if (!exit_info.is_null()) {
    // Words, as a shell reports it: "exited 3" or "killed by SIGSEGV".
    if (exit_info.contains("signal")) {
      const int sig = exit_info["signal"].get<int>();
      std::printf("exit       killed by %s\n", signal_name(sig).c_str());
    } else {
      std::printf("exit       exited %d\n", exit_info["status"].get<int>());
    }
  }
  if (meta.threads)
    std::printf("threads    %zu (replay --check, restore, GDB with watchpoints, bisect take them)\n", tids.size());
  if (sysbuf_stub)
    std::printf("syscalls   buffered (stub version %llu)\n", static_cast<unsigned long long>(*sysbuf_stub));
  if (meta.pid > 0 && meta.origin != "spawn")
    std::printf("process    %d, child of %d, recorded from its %s\n", meta.pid, meta.parent_pid, meta.origin.c_str());
  if (!children.empty()) {
    std::string pids;
    for (pid_t p : children) pids += " " + std::to_string(p);
    // A member (-p) has no tree of its own, but its children are in the root's.
    std::printf("children   %zu%s:%s\n", children.size(), tree.empty() && !member.given() ? " (unrecorded)" : "",
                pids.c_str());
  }
  if (!tree.empty()) {
    std::printf("processes  %zu recorded (replay -p PID, dump -p PID ...):\n", tree.size());
    for (const ProcessRow& p : tree) {
      std::string prog = p.program.size() > 48 ? p.program.substr(0, 45) + "..." : p.program;
      std::printf("  %*s%-7s parent %-7d %-6s %3zu checkpoints  %-14s %s%s\n", 2 * p.depth, "", p.name.c_str(), p.parent_pid,
                  p.origin.c_str(), p.checkpoints, p.exit ? p.exit->c_str() : "(no exit)", prog.c_str(),
                  p.error.empty() ? "" : ("  [" + p.error + "]").c_str());
    }
    std::printf("group cuts %zu consistent cuts of the tree", cuts.size());
    if (!cuts.empty()) {
      std::string last;
      for (const store::CutMember& m : cuts.back().members) last += " " + std::to_string(m.pid) + ":" + std::to_string(m.checkpoint);
      std::printf(" (the last, %llu, PID:checkpoint:%s)", static_cast<unsigned long long>(cuts.back().id), last.c_str());
    }
    std::printf("\n");
  }
  if (open_segment_unreadable) std::printf("last segment open: its events were never committed\n");
  std::printf("\n%6s %12s %8s %10s  %-7s %s\n", "id", "time(ms)", "dirty", "stop(us)", "reason", "events");
  for (const auto& c : cps)
    std::printf("%6llu %12.3f %8llu %10.1f  %-7s %llu\n", static_cast<unsigned long long>(c.id.value),
                c.time_ns / 1e6, static_cast<unsigned long long>(c.dirty_pages), c.stop_ns / 1000.0, c.reason.c_str(),
                static_cast<unsigned long long>(c.segment_events));
  std::printf("\ncheckpoints %zu, events %llu", cps.size(), static_cast<unsigned long long>(total_events));
  for (const auto& [k, n] : by_kind) std::printf(", %s %llu", k.c_str(), static_cast<unsigned long long>(n));
  std::printf("\nstop time  p50 %.1f us, p99 %.1f us\n", percentile(stops_us, 50), percentile(stops_us, 99));
  // Gaps between stored checkpoints, whatever made them (the adaptive
  // interval's stretching is on the "interval" line above).
  if (stretched)
    std::printf("late ticks %llu (a gap over 1.5x the interval, longest %.1f ms): the recorder could not keep up\n",
                static_cast<unsigned long long>(stretched), max_gap_ns / 1e6);
  else
    std::printf("late ticks none\n");
  return 0;
}

Registrar reg({"info", "show a recording's checkpoints, events and stop times", kUsage, run_info, 30});

}  // namespace
}  // namespace slsdbg::cli
