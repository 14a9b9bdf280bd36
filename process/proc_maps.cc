#include "process/proc_maps.h"

#include <sys/mman.h>
#include <sys/sysmacros.h>

#include <cinttypes>
#include <map>
#include <mutex>
#include <tuple>
#include <cstdio>
#include <fstream>
#include <string>

#include "process/build_id.h"

namespace slsdbg::process {

using store::MappingFlags;

bool is_special_mapping(const store::Mapping& m) {
  return m.path.size() > 2 && m.path.front() == '[' && m.path != "[heap]" && m.path != "[stack]" &&
         m.path.rfind("[anon", 0) != 0;  // "[anon:NAME]" is ordinary named anonymous memory
}

namespace {

// Build-ids by file identity: each file is read once per process.
std::string cached_build_id(const store::Mapping& m) {
  static std::mutex mu;
  static std::map<std::tuple<uint64_t, uint64_t, std::string>, std::string> cache;
  const auto key = std::make_tuple(m.dev, m.inode, m.path);
  std::lock_guard lock(mu);
  auto it = cache.find(key);
  if (it != cache.end()) return it->second;
  return cache[key] = read_build_id(m.path);
}

}  // namespace

Result<std::vector<store::Mapping>> read_maps(pid_t pid) {
  std::string path = "/proc/" + std::to_string(pid) + "/maps";
  std::ifstream in(path);
  if (!in) return Error::from_errno("open(" + path + ")");
  std::vector<store::Mapping> maps;
  std::string line;
  while (std::getline(in, line)) {
    store::Mapping m;
    char perms[8] = {};
    unsigned devmaj = 0, devmin = 0;
    unsigned long long start, end, off, inode;
    int consumed = 0;
    if (sscanf(line.c_str(), "%llx-%llx %7s %llx %x:%x %llu %n", &start, &end, perms, &off, &devmaj, &devmin, &inode,
               &consumed) < 7)
      return Error::msg(path + ": cannot parse line '" + line + "'");
    m.start = start;
    m.end = end;
    m.file_offset = off;
    m.dev = makedev(devmaj, devmin);
    m.inode = inode;
    if (consumed > 0 && static_cast<size_t>(consumed) <= line.size()) m.path = line.substr(consumed);
    if (perms[0] == 'r') m.prot |= PROT_READ;
    if (perms[1] == 'w') m.prot |= PROT_WRITE;
    if (perms[2] == 'x') m.prot |= PROT_EXEC;
    if (perms[3] == 's') m.flags |= flag(MappingFlags::Shared);
    if (inode == 0 && (m.path.empty() || m.path.front() == '[')) m.flags |= flag(MappingFlags::Anonymous);
    if (m.path == "[heap]") m.flags |= flag(MappingFlags::Heap);
    if (m.path == "[stack]") m.flags |= flag(MappingFlags::Stack);
    if (is_special_mapping(m)) m.flags |= flag(MappingFlags::Vdso);
    if (inode != 0 && !m.path.empty() && m.path.front() == '/') m.build_id = cached_build_id(m);
    maps.push_back(std::move(m));
  }
  if (maps.empty()) return Error::msg(path + ": no mappings (process gone?)");
  return maps;
}

}  // namespace slsdbg::process
