#include "gdbserver/replay/target_files.h"

#include <sys/mman.h>
#include <sys/sysmacros.h>

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include "gdbserver/replay/threaded_target.h"
#include "gdbserver/replay/timeline_target.h"

namespace slsdbg::gdbserver {

namespace {

std::string maps_text(const std::vector<store::Mapping>& maps) {
  std::string out;
  for (const store::Mapping& m : maps) {
    char line[128];
    std::snprintf(line, sizeof line, "%08" PRIx64 "-%08" PRIx64 " %c%c%c%c %08" PRIx64 " %02x:%02x %" PRIu64, m.start,
                  m.end, (m.prot & PROT_READ) ? 'r' : '-', (m.prot & PROT_WRITE) ? 'w' : '-',
                  (m.prot & PROT_EXEC) ? 'x' : '-', (m.flags & store::flag(store::MappingFlags::Shared)) ? 's' : 'p',
                  m.file_offset, major(m.dev), minor(m.dev), m.inode);
    out += line;
    if (!m.path.empty()) out += std::string(std::max<int>(1, 73 - static_cast<int>(std::strlen(line))), ' ') + m.path;
    out += "\n";
  }
  return out;
}

}  // namespace

Result<std::string> read_replay_file(std::string_view path, const MappingsNow& mappings_now) {
  if (path.starts_with("/proc/")) {
    if (path.ends_with("/maps")) return maps_text(TRY(mappings_now()));
    return Error::from_errno(std::string(path), ENOENT);
  }
  std::ifstream in{std::string(path), std::ios::binary};
  if (!in) return Error::from_errno("open " + std::string(path), errno ? errno : ENOENT);
  std::ostringstream data;
  data << in.rdbuf();
  return data.str();
}

Result<std::string> TimelineTarget::read_file(std::string_view path) {
  return read_replay_file(path, [this]() -> Result<std::vector<store::Mapping>> {
    replay::Timeline* t = TRY(live());
    return t->live_mappings();
  });
}

Result<std::string> ThreadedTarget::read_file(std::string_view path) {
  return read_replay_file(path, [this]() -> Result<std::vector<store::Mapping>> {
    replay::ThreadedTimeline* t = TRY(live());
    return t->live_mappings();
  });
}

}  // namespace slsdbg::gdbserver
