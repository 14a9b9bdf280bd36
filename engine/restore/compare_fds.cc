// The descriptors of a restored process against its checkpoint's, for
// `restore --verify`: each object restore makes again (fd_objects.h) is
// there with its state, read back as the recorder reads it.
#include <fcntl.h>
#include <sys/socket.h>

#include <algorithm>
#include <map>
#include <string>
#include <tuple>

#include "engine/restore/fd_objects.h"
#include "engine/restore/restore_compare.h"
#include "engine/restore/restore_steps.h"
#include "process/proc_fds.h"

namespace slsdbg::restore {

namespace {

// Registrations in a comparable order (the kernel lists them by file).
Result<std::vector<std::tuple<int, uint32_t, uint64_t>>> registrations(const store::FdEntry& e) {
  std::vector<std::tuple<int, uint32_t, uint64_t>> out;
  for (const auto& r : TRY(parse_epoll(e.object))) out.emplace_back(r.fd, r.events, r.data);
  std::sort(out.begin(), out.end());
  return out;
}

// The state one kind keeps beyond its kind: "" when equal, else what differs.
Result<std::string> state_difference(FdObjectKind kind, const store::FdEntry& want, const store::FdEntry& got) {
  switch (kind) {
    case FdObjectKind::Eventfd: {
      const auto w = TRY(parse_eventfd(want.object)), g = TRY(parse_eventfd(got.object));
      if (w.count != g.count) return "count " + std::to_string(g.count) + ", recorded " + std::to_string(w.count);
      if (w.semaphore != g.semaphore) return std::string("semaphore mode differs");
      return std::string();
    }
    case FdObjectKind::Timerfd: {
      const auto w = TRY(parse_timerfd(want.object)), g = TRY(parse_timerfd(got.object));
      if (w.clockid != g.clockid) return std::string("clock differs");
      if (w.interval_sec != g.interval_sec || w.interval_nsec != g.interval_nsec) return std::string("period differs");
      return std::string();
    }
    case FdObjectKind::Signalfd:
      return TRY(parse_signalfd_mask(want.object)) == TRY(parse_signalfd_mask(got.object)) ? std::string() : std::string("mask differs");
    case FdObjectKind::Epoll:
      return TRY(registrations(want)) == TRY(registrations(got)) ? std::string() : std::string("registrations differ");
    default:
      return std::string();
  }
}

}  // namespace

Result<uint64_t> compare_descriptors(pid_t pid, const std::vector<store::FdEntry>& recorded) {
  const auto live = TRY(process::read_fds(pid));
  std::map<int, const store::FdEntry*> by_fd;
  for (const auto& e : live) by_fd[e.fd] = &e;
  std::map<uint64_t, uint64_t> same_object;  // recorded pipe/socket inode -> live inode
  std::map<uint64_t, std::string> queued;    // recorded pipe inode -> its bytes (kept on one end)
  std::map<uint64_t, std::string> live_queued;
  for (const auto& e : recorded)
    if (auto ino = store::fd_object_inode(e.path); ino && !e.queued.empty()) queued[*ino] = e.queued;
  for (const auto& e : live)
    if (auto ino = store::fd_object_inode(e.path); ino && !e.queued.empty()) live_queued[*ino] = e.queued;
  uint64_t compared = 0;
  for (const auto& want : recorded) {
    if (want.fd <= 2) continue;
    const FdObjectKind kind = fd_object_kind(want.path);
    const bool made_again = kind != FdObjectKind::Other && (kind != FdObjectKind::Socket || !want.object.empty());
    const auto it = by_fd.find(want.fd);
    if (it == by_fd.end()) {
      // Files that could not be opened and sockets of other kinds are
      // warned about when restored; what restore makes must be there.
      if (made_again && kind != FdObjectKind::Socket) return Error::msg(fd_label(want) + " is not open");
      continue;
    }
    const store::FdEntry& got = *it->second;
    if (kind == FdObjectKind::Other) {
      if (want.path.rfind("anon_inode:", 0) == 0 || want.path.rfind("socket:", 0) == 0) continue;  // a placeholder
      if (got.path != want.path) return Error::msg(fd_label(want) + " is " + got.path);
      if (!(want.flags & O_APPEND) && got.offset != want.offset)
        return Error::msg(fd_label(want) + ": offset " + std::to_string(got.offset) + ", recorded " +
                          std::to_string(want.offset));
      compared++;
      continue;
    }
    if (fd_object_kind(got.path) != kind) return Error::msg(fd_label(want) + " is " + got.path);
    if ((got.flags & (O_ACCMODE | O_NONBLOCK)) != (want.flags & (O_ACCMODE | O_NONBLOCK)) ||
        got.fd_flags != want.fd_flags)
      return Error::msg(fd_label(want) + ": flags differ");
    if (auto w = store::fd_object_inode(want.path), g = store::fd_object_inode(got.path); w && g) {
      // Ends of one recorded pipe or socket are ends of one live one.
      auto [at, fresh] = same_object.emplace(*w, *g);
      if (!fresh && at->second != *g) return Error::msg(fd_label(want) + " is not the same object as its other fds");
      const bool pipe = kind == FdObjectKind::Pipe;
      const std::string want_bytes = pipe ? queued[*w] : want.queued;
      const std::string got_bytes = pipe ? live_queued[*g] : got.queued;
      if (want_bytes != got_bytes)
        return Error::msg(fd_label(want) + ": " + std::to_string(got_bytes.size()) + " waiting bytes, recorded " +
                          std::to_string(want_bytes.size()) + (want_bytes.size() == got_bytes.size() ? " (others)" : ""));
    }
    const std::string diff = TRY(state_difference(kind, want, got));
    if (!diff.empty()) return Error::msg(fd_label(want) + ": " + diff);
    compared++;
  }
  return compared;
}

}  // namespace slsdbg::restore
