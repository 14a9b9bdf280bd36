#include "cli/process_tree.h"

#include <map>

#include "common/signal_name.h"
#include "store/members.h"
#include "store/recording.h"

namespace slsdbg::cli {

namespace {

// The exit is the last event of the last segment.
void read_member(ProcessRow& row) {
  auto reader = store::RecordingReader::open(row.dir);
  if (!reader.ok()) {
    row.error = reader.error().message;
    return;
  }
  const auto& r = **reader;
  for (const std::string& a : r.meta().args) row.program += (row.program.empty() ? "" : " ") + a;
  if (row.program.empty()) row.program = r.meta().program;
  const auto cps = r.checkpoints();
  row.checkpoints = cps.size();
  if (cps.empty()) return;
  // A member that exec'd runs another program than its fork's argv says.
  auto first = r.process_state(cps.front().id);
  auto last = r.process_state(cps.back().id);
  if (first.ok() && last.ok() && !last->exe.empty() && last->exe != first->exe)
    row.program = last->exe + " (exec'd; started as " + row.program + ")";
  auto evs = r.segment_events(segment_after(cps.back().id));
  if (!evs.ok()) return;
  for (const store::Event& e : *evs)
    if (e.kind == store::EventKind::Exit)
      row.exit = e.signo ? "killed by " + signal_name(e.signo) : "exited " + std::to_string(e.exit_status);
}

}  // namespace

Result<std::vector<ProcessRow>> process_tree(const std::string& rec) {
  const std::vector<store::Member> members = TRY(store::list_members(rec));
  std::vector<ProcessRow> rows;
  std::map<int, int> depth_of;
  for (const store::Member& m : members) {
    ProcessRow row;
    row.pid = m.pid;
    row.name = m.name.empty() ? std::to_string(m.pid) : m.name;
    row.parent_pid = m.parent_pid;
    row.origin = m.origin;
    row.dir = m.dir;
    auto it = depth_of.find(m.parent_pid);
    row.depth = rows.empty() || it == depth_of.end() ? (rows.empty() ? 0 : 1) : it->second + 1;
    depth_of[m.pid] = row.depth;
    read_member(row);
    rows.push_back(std::move(row));
  }
  return rows;
}

nlohmann::json process_tree_json(const std::vector<ProcessRow>& rows) {
  nlohmann::json arr = nlohmann::json::array();
  for (const ProcessRow& r : rows)
    arr.push_back({{"pid", r.pid},
                   {"name", r.name},
                   {"parent", r.parent_pid},
                   {"program", r.program},
                   {"origin", r.origin},
                   {"checkpoints", r.checkpoints},
                   {"exit", r.exit ? nlohmann::json(*r.exit) : nlohmann::json(nullptr)},
                   {"path", r.dir},
                   {"error", r.error.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.error)}});
  return arr;
}

}  // namespace slsdbg::cli
