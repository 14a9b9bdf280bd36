#include "process/proc_identity.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <sstream>

#include "common/fd.h"

namespace slsdbg::process {

namespace {

Result<std::string> read_whole(const std::string& path) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) return Error::from_errno("open(" + path + ")");
  std::string out;
  char buf[4096];
  for (;;) {
    ssize_t n = read(fd.get(), buf, sizeof buf);
    if (n < 0) return Error::from_errno("read(" + path + ")");
    if (n == 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  return out;
}

Result<std::string> read_link(const std::string& path) {
  char buf[4096];
  ssize_t n = readlink(path.c_str(), buf, sizeof buf);
  if (n < 0) return Error::from_errno("readlink(" + path + ")");
  return std::string(buf, static_cast<size_t>(n));
}

std::string proc(pid_t pid, const char* what) { return "/proc/" + std::to_string(pid) + "/" + what; }

}  // namespace

Result<std::vector<uint8_t>> read_auxv(pid_t pid) {
  std::string raw = TRY(read_whole(proc(pid, "auxv")));
  return std::vector<uint8_t>(raw.begin(), raw.end());
}

Result<std::string> read_exe(pid_t pid) { return read_link(proc(pid, "exe")); }
Result<std::string> read_cwd(pid_t pid) { return read_link(proc(pid, "cwd")); }

Result<std::vector<std::string>> read_cmdline(pid_t pid) {
  std::string raw = TRY(read_whole(proc(pid, "cmdline")));
  std::vector<std::string> args;
  size_t pos = 0;
  while (pos < raw.size()) {
    size_t end = raw.find('\0', pos);
    if (end == std::string::npos) end = raw.size();
    args.push_back(raw.substr(pos, end - pos));
    pos = end + 1;
  }
  return args;
}

Result<uint64_t> read_brk_start(pid_t pid) {
  std::string stat = TRY(read_whole(proc(pid, "stat")));
  // The command name (field 2) may hold spaces and parentheses: count fields after the last ')'.
  size_t close = stat.rfind(')');
  if (close == std::string::npos) return Error::msg(proc(pid, "stat") + ": malformed");
  std::istringstream rest(stat.substr(close + 2));
  std::string field;
  for (int i = 3; i <= 47; ++i) {
    if (!(rest >> field)) return Error::msg(proc(pid, "stat") + ": too few fields");
  }
  return std::stoull(field);
}

std::optional<std::string> read_status_field(pid_t pid, std::string_view name) {
  Result<std::string> text = read_whole("/proc/" + std::to_string(pid) + "/status");
  if (!text.ok()) return std::nullopt;
  std::istringstream lines(*text);
  const std::string key = std::string(name) + ":";
  for (std::string line; std::getline(lines, line);)
    if (line.rfind(key, 0) == 0) return line.substr(key.size());
  return std::nullopt;
}

pid_t read_parent_pid(pid_t pid) {
  const std::optional<std::string> ppid = read_status_field(pid, "PPid");
  return ppid ? std::atoi(ppid->c_str()) : -1;
}

}  // namespace slsdbg::process
