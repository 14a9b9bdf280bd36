#include "store/group_cuts.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>
#include <sstream>

namespace slsdbg::store {

std::string group_cuts_path(const std::string& rec) { return rec + "/" + kGroupCutsFile; }

std::string format_group_cut(const GroupCut& cut) {
  std::string line = std::to_string(cut.id);
  for (const CutMember& m : cut.members) line += " " + std::to_string(m.pid) + ":" + std::to_string(m.checkpoint);
  return line;
}

Result<GroupCut> parse_group_cut(const std::string& line) {
  std::istringstream in(line);
  GroupCut cut;
  std::string word;
  if (!(in >> word)) return Error::msg("an empty line");
  char* end = nullptr;
  cut.id = std::strtoull(word.c_str(), &end, 10);
  if (*end != '\0' || cut.id == 0) return Error::msg("'" + word + "' is not a cut number");
  while (in >> word) {
    const size_t colon = word.find(':');
    CutMember m;
    const long pid = colon == std::string::npos ? 0 : std::strtol(word.c_str(), &end, 10);
    if (pid <= 0 || end != word.c_str() + colon) return Error::msg("'" + word + "' is not PID:CHECKPOINT");
    m.pid = static_cast<int>(pid);
    m.checkpoint = std::strtoull(word.c_str() + colon + 1, &end, 10);
    if (*end != '\0' || colon + 1 == word.size()) return Error::msg("'" + word + "' is not PID:CHECKPOINT");
    cut.members.push_back(m);
  }
  if (cut.members.size() < 2) return Error::msg("cut " + std::to_string(cut.id) + " names fewer than 2 members");
  return cut;
}

Status append_group_cut(const std::string& rec, const GroupCut& cut) {
  const std::string path = group_cuts_path(rec);
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) return Error::from_errno("open " + path);
  const std::string line = format_group_cut(cut) + "\n";
  const ssize_t n = ::write(fd, line.data(), line.size());
  const int err = errno;
  ::close(fd);
  if (n != static_cast<ssize_t>(line.size())) return Error::from_errno("write " + path, n < 0 ? err : EIO);
  return ok_status();
}

Result<std::vector<GroupCut>> read_group_cuts(const std::string& rec) {
  std::vector<GroupCut> cuts;
  std::ifstream f(group_cuts_path(rec), std::ios::binary);
  if (!f) return cuts;
  std::string all((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  size_t at = 0;
  for (int number = 1; at < all.size(); number++) {
    const size_t nl = all.find('\n', at);
    if (nl == std::string::npos) break;  // torn by a killed recorder
    Result<GroupCut> cut = parse_group_cut(all.substr(at, nl - at));
    if (!cut.ok()) return Error::msg(group_cuts_path(rec) + " line " + std::to_string(number) + ": " + cut.error().message);
    cuts.push_back(std::move(*cut));
    at = nl + 1;
  }
  return cuts;
}

}  // namespace slsdbg::store
