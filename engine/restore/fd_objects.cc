// Parsers of the kernel's fdinfo lines (fs/eventfd.c, fs/timerfd.c,
// fs/signalfd.c, fs/eventpoll.c show_fdinfo): counts and masks in hex,
// times in decimal seconds and nanoseconds.
#include "engine/restore/fd_objects.h"

#include <cinttypes>
#include <cstdio>
#include <cstring>

namespace slsdbg::restore {

namespace {

// The text after "KEY" at the start of a line, or nullptr.
const char* after_key(const std::string& lines, const char* key) {
  const size_t n = std::strlen(key);
  for (size_t at = 0; at < lines.size();) {
    if (lines.compare(at, n, key) == 0) return lines.c_str() + at + n;
    const size_t nl = lines.find('\n', at);
    if (nl == std::string::npos) break;
    at = nl + 1;
  }
  return nullptr;
}

Error missing(const char* what, const char* key) {
  return Error::msg(std::string(what) + " fdinfo: no well-formed '" + key + "' line");
}

}  // namespace

FdObjectKind fd_object_kind(const std::string& path) {
  if (path.rfind("pipe:[", 0) == 0) return FdObjectKind::Pipe;
  if (path.rfind("socket:[", 0) == 0) return FdObjectKind::Socket;
  if (path == "anon_inode:[eventfd]") return FdObjectKind::Eventfd;
  if (path == "anon_inode:[timerfd]") return FdObjectKind::Timerfd;
  if (path == "anon_inode:[signalfd]") return FdObjectKind::Signalfd;
  if (path == "anon_inode:[eventpoll]") return FdObjectKind::Epoll;
  return FdObjectKind::Other;
}

Result<EventfdObject> parse_eventfd(const std::string& lines) {
  EventfdObject e;
  const char* count = after_key(lines, "eventfd-count:");
  if (!count || std::sscanf(count, " %" SCNx64, &e.count) != 1) return missing("eventfd", "eventfd-count:");
  // Kernels before 6.4 do not say; such an eventfd reads as a counter.
  int semaphore = 0;
  if (const char* s = after_key(lines, "eventfd-semaphore:")) std::sscanf(s, " %d", &semaphore);
  e.semaphore = semaphore != 0;
  return e;
}

Result<TimerfdObject> parse_timerfd(const std::string& lines) {
  TimerfdObject t;
  const char* clock = after_key(lines, "clockid:");
  if (!clock || std::sscanf(clock, " %d", &t.clockid) != 1) return missing("timerfd", "clockid:");
  const char* ticks = after_key(lines, "ticks:");
  if (!ticks || std::sscanf(ticks, " %" SCNu64, &t.ticks) != 1) return missing("timerfd", "ticks:");
  const char* value = after_key(lines, "it_value:");
  if (!value || std::sscanf(value, " (%" SCNu64 ", %" SCNu64 ")", &t.value_sec, &t.value_nsec) != 2)
    return missing("timerfd", "it_value:");
  const char* interval = after_key(lines, "it_interval:");
  if (!interval || std::sscanf(interval, " (%" SCNu64 ", %" SCNu64 ")", &t.interval_sec, &t.interval_nsec) != 2)
    return missing("timerfd", "it_interval:");
  if (t.value_nsec >= 1000000000 || t.interval_nsec >= 1000000000)
    return Error::msg("timerfd fdinfo: nanoseconds out of range");
  return t;
}

Result<uint64_t> parse_signalfd_mask(const std::string& lines) {
  uint64_t mask = 0;
  const char* m = after_key(lines, "sigmask:");
  if (!m || std::sscanf(m, " %" SCNx64, &mask) != 1) return missing("signalfd", "sigmask:");
  return mask;
}

Result<std::vector<EpollRegistration>> parse_epoll(const std::string& lines) {
  std::vector<EpollRegistration> out;
  for (size_t at = 0; at < lines.size();) {
    size_t nl = lines.find('\n', at);
    if (nl == std::string::npos) nl = lines.size();
    const std::string line = lines.substr(at, nl - at);
    at = nl + 1;
    if (line.rfind("tfd:", 0) != 0) continue;
    EpollRegistration r;
    if (std::sscanf(line.c_str(), "tfd: %d events: %x data: %" SCNx64, &r.fd, &r.events, &r.data) != 3 || r.fd < 0)
      return Error::msg("epoll fdinfo: malformed registration '" + line + "'");
    out.push_back(r);
  }
  return out;
}

Result<std::optional<UnixSocketObject>> parse_unix_socket(const std::string& lines) {
  if (lines.empty()) return std::optional<UnixSocketObject>{};
  UnixSocketObject u;
  const char* type = after_key(lines, "unix-type:");
  if (!type || std::sscanf(type, " %d", &u.type) != 1) return missing("unix socket", "unix-type:");
  const char* peer = after_key(lines, "unix-peer:");
  if (!peer || std::sscanf(peer, " %" SCNu64, &u.peer_inode) != 1) return missing("unix socket", "unix-peer:");
  return std::optional<UnixSocketObject>{u};
}

}  // namespace slsdbg::restore
