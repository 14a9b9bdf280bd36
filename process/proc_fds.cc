#include "process/proc_fds.h"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <string>

namespace slsdbg::process {

Result<std::vector<store::FdEntry>> read_fds(pid_t pid) {
  std::string base = "/proc/" + std::to_string(pid);
  DIR* dir = opendir((base + "/fd").c_str());
  if (!dir) return Error::from_errno("opendir(" + base + "/fd)");
  std::vector<store::FdEntry> fds;
  while (dirent* de = readdir(dir)) {
    if (de->d_name[0] == '.') continue;
    store::FdEntry e;
    e.fd = std::atoi(de->d_name);
    char target[4096];
    ssize_t n = readlink((base + "/fd/" + de->d_name).c_str(), target, sizeof target - 1);
    if (n < 0) continue;  // closed meanwhile
    e.path.assign(target, static_cast<size_t>(n));
    std::ifstream info(base + "/fdinfo/" + de->d_name);
    std::string key;
    while (info >> key) {
      if (key == "pos:") {
        info >> e.offset;
      } else if (key == "flags:") {
        std::string octal;
        info >> octal;
        long flags = std::strtol(octal.c_str(), nullptr, 8);
        e.fd_flags = (flags & O_CLOEXEC) ? FD_CLOEXEC : 0;
        e.flags = static_cast<int32_t>(flags & ~O_CLOEXEC);
      } else {
        std::string rest;
        std::getline(info, rest);
      }
    }
    fds.push_back(std::move(e));
  }
  closedir(dir);
  std::sort(fds.begin(), fds.end(), [](const auto& a, const auto& b) { return a.fd < b.fd; });
  return fds;
}

}  // namespace slsdbg::process
