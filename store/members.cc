#include "store/members.h"

#include <dirent.h>

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <map>
#include <set>
#include <sys/stat.h>

#include "store/catalog.h"

namespace slsdbg::store {

std::string members_dir(const std::string& rec) { return rec + "/members"; }
std::string member_dir(const std::string& rec, int pid) { return members_dir(rec) + "/" + std::to_string(pid); }

std::string unused_member_dir(const std::string& rec, int pid) {
  std::string dir = member_dir(rec, pid);
  struct stat st;
  for (int n = 2; ::lstat(dir.c_str(), &st) == 0; n++) dir = member_dir(rec, pid) + "." + std::to_string(n);
  return dir;
}

bool is_member_name(const std::string& name) {
  const size_t dot = name.find('.');
  auto digits = [](const std::string& s) {
    return !s.empty() && s.size() <= 9 && s.find_first_not_of("0123456789") == std::string::npos;
  };
  if (dot == std::string::npos) return digits(name);
  return digits(name.substr(0, dot)) && digits(name.substr(dot + 1));
}

namespace {

Result<Member> read_member(const std::string& dir, const std::string& name) {
  Catalog c = TRY(Catalog::open(dir));
  RecordingMeta m = TRY(c.meta());
  return Member{m.pid, name, m.parent_pid, dir, m.program, m.origin};
}

// The N of a name "PID.N" (1 for "PID"): the order of processes with a pid.
long generation(const Member& m) {
  const size_t dot = m.name.find('.');
  return dot == std::string::npos ? 1 : std::atol(m.name.c_str() + dot + 1);
}

}  // namespace

Result<std::vector<Member>> list_members(const std::string& rec) {
  std::vector<Member> out{TRY(read_member(rec, ""))};
  std::vector<Member> children;
  if (DIR* d = opendir(members_dir(rec).c_str())) {
    while (dirent* e = readdir(d)) {
      const std::string name = e->d_name;
      if (!is_member_name(name)) continue;
      Result<Member> m = read_member(members_dir(rec) + "/" + name, name);
      if (m.ok()) children.push_back(std::move(*m));
    }
    closedir(d);
  }
  std::sort(children.begin(), children.end(), [](const Member& a, const Member& b) {
    return a.pid != b.pid ? a.pid < b.pid : generation(a) < generation(b);
  });
  std::multimap<int, const Member*> by_parent;
  for (const Member& m : children) by_parent.emplace(m.parent_pid, &m);
  std::vector<Member> ordered{out[0]};
  // Each member once: with a reused pid, a child sits under the first
  // process of its parent's pid met (the tree holds no more than pids).
  std::set<std::string> placed;
  std::function<void(int)> walk = [&](int parent) {
    auto [lo, hi] = by_parent.equal_range(parent);
    for (auto it = lo; it != hi; ++it) {
      if (!placed.insert(it->second->dir).second) continue;
      ordered.push_back(*it->second);
      walk(it->second->pid);
    }
  };
  if (out[0].pid > 0) walk(out[0].pid);
  // Members whose parent is not in the tree (it was not recorded): after it.
  for (const Member& m : children)
    if (placed.insert(m.dir).second) {
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
    if (m.pid > 0) pids += (pids.empty() ? "" : " ") + (m.name.empty() ? std::to_string(m.pid) : m.name);
  }
  if (pids.empty()) return Error::not_found("no process " + std::to_string(pid) + " in " + rec + " (it records one process, from before format 6)");
  return Error::not_found("no process " + std::to_string(pid) + " in " + rec + " (its processes: " + pids + ")");
}

Result<std::string> member_recording(const std::string& rec, const std::string& name) {
  if (name.find('.') == std::string::npos) return member_recording(rec, std::stoi(name));
  std::vector<Member> members = TRY(list_members(rec));
  std::string names;
  for (const Member& m : members) {
    if (m.name == name) return m.dir;
    if (!m.name.empty()) names += (names.empty() ? "" : " ") + m.name;
  }
  return Error::not_found("no process " + name + " in " + rec + " (its processes: " + names + ")");
}

}  // namespace slsdbg::store
