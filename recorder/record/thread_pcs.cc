#include "recorder/record/thread_pcs.h"

#include <dirent.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <memory>

namespace slsdbg::recorder {

std::optional<uint64_t> pc_of_syscall_line(const std::string& line) {
  // "NR ARG1 .. ARG6 SP PC" in a call, "-1 SP PC" outside one: pc is last.
  const size_t end = line.find_last_not_of(" \n");
  if (end == std::string::npos) return std::nullopt;
  const size_t start = line.find_last_of(' ', end);
  if (start == std::string::npos) return std::nullopt;
  const std::string last = line.substr(start + 1, end - start);
  if (last.rfind("0x", 0) != 0) return std::nullopt;
  char* stop = nullptr;
  const uint64_t pc = std::strtoull(last.c_str() + 2, &stop, 16);
  if (stop == last.c_str() + 2 || *stop != '\0') return std::nullopt;
  return pc;
}

Result<std::optional<std::vector<uint64_t>>> other_thread_pcs(pid_t tgid, pid_t self) {
  const std::string dir = "/proc/" + std::to_string(tgid) + "/task";
  std::unique_ptr<DIR, int (*)(DIR*)> d(opendir(dir.c_str()), closedir);
  if (!d) return Error::from_errno("opendir " + dir);
  std::vector<uint64_t> pcs;
  while (const dirent* e = readdir(d.get())) {
    const pid_t tid = static_cast<pid_t>(std::atoi(e->d_name));
    if (tid <= 0 || tid == self) continue;
    const std::string task = dir + "/" + e->d_name;
    std::ifstream in(task + "/syscall");
    std::string line;
    if (!in || !std::getline(in, line)) {
      if (access(task.c_str(), F_OK) != 0) continue;  // gone meanwhile
      return std::optional<std::vector<uint64_t>>();  // there but unreadable: as if it ran
    }
    if (line.rfind("running", 0) == 0) return std::optional<std::vector<uint64_t>>();
    const std::optional<uint64_t> pc = pc_of_syscall_line(line);
    if (!pc) return std::optional<std::vector<uint64_t>>();  // not understood: as if it ran
    pcs.push_back(*pc);
  }
  return std::optional<std::vector<uint64_t>>(std::move(pcs));
}

}  // namespace slsdbg::recorder
