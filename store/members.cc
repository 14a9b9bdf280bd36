#include "store/members.h"

#include <dirent.h>

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <map>

#include "store/catalog.h"

namespace slsdbg::store {

std::string members_dir(const std::string& rec) { return rec + "/members"; }
std::string member_dir(const std::string& rec, int pid) { return members_dir(rec) + "/" + std::to_string(pid); }

namespace {

Result<Member> read_member(const std::string& dir) {
  Catalog c = TRY(Catalog::open(dir));
  RecordingMeta m = TRY(c.meta());
  return Member{m.pid, m.parent_pid, dir, m.program, m.origin};
}

}  // namespace

Result<std::vector<Member>> list_members(const std::string& rec) {
  std::vector<Member> out{TRY(read_member(rec))};
  std::vector<Member> children;
  if (DIR* d = opendir(members_dir(rec).c_str())) {
    while (dirent* e = readdir(d)) {
      const std::string name = e->d_name;
      if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
      Result<Member> m = read_member(members_dir(rec) + "/" + name);
      if (m.ok()) children.push_back(std::move(*m));
    }
    closedir(d);
  }
  std::sort(children.begin(), children.end(), [](const Member& a, const Member& b) { return a.pid < b.pid; });
  std::multimap<int, const Member*> by_parent;
  for (const Member& m : children) by_parent.emplace(m.parent_pid, &m);
  std::vector<Member> ordered{out[0]};
  std::function<void(int)> walk = [&](int parent) {
    auto [lo, hi] = by_parent.equal_range(parent);
    for (auto it = lo; it != hi; ++it) {
      ordered.push_back(*it->second);
      walk(it->second->pid);
    }
  };
  if (out[0].pid > 0) walk(out[0].pid);
  // Members whose parent is not in the tree (it was not recorded): after it.
  for (const Member& m : children)
    if (std::none_of(ordered.begin(), ordered.end(), [&](const Member& o) { return o.pid == m.pid; })) {
      ordered.push_back(m);
      walk(m.pid);
    }
  return ordered;
}

Result<std::string> member_recording(const std::string& rec, int pid) {
  std::vector<Member> members = TRY(list_members(rec));
  std::string pids;
  for (const Member& m : members) {
    if (m.pid == pid) return m.dir;
    if (m.pid > 0) pids += (pids.empty() ? "" : " ") + std::to_string(m.pid);
  }
  if (pids.empty()) return Error::not_found("no process " + std::to_string(pid) + " in " + rec + " (it records one process, from before format 6)");
  return Error::not_found("no process " + std::to_string(pid) + " in " + rec + " (its processes: " + pids + ")");
}

}  // namespace slsdbg::store
