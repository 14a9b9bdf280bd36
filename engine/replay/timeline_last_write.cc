// Timeline::last_write: "who last wrote these bytes?" as one query. A
// reverse continue with write watchpoints on the bytes alone (the user's
// breakpoints and watchpoints set aside), which lets it skip every segment
// that cannot have written them (write_filter.h); the caller inspects the
// writing moment, then the timeline returns where it was.
#include "common/log.h"
#include "engine/replay/timeline_impl.h"

namespace slsdbg::replay {

namespace {

// [addr, addr+len) as aligned 1/2/4/8-byte pieces, largest first.
std::vector<Watch> pieces(uint64_t addr, uint64_t len) {
  std::vector<Watch> out;
  while (len > 0) {
    uint64_t n = 8;
    while (n > 1 && (addr % n != 0 || n > len)) n /= 2;
    out.push_back(Watch{WatchKind::Write, addr, n});
    addr += n;
    len -= n;
  }
  return out;
}

}  // namespace

Result<std::optional<Timeline::LastWrite>> Timeline::last_write(uint64_t addr, uint64_t len,
                                                                const std::function<Status(const LastWrite&)>& at_write) {
  Impl& t = *impl_;
  if (len == 0) return Error::msg("last-write: the length must be at least 1 byte");
  if (addr + len < addr) return Error::msg("last-write: the range wraps around the address space");
  std::vector<Watch> watches = pieces(addr, len);
  if (watches.size() > 2)
    return Error::msg("last-write: " + std::to_string(len) + " bytes at this address need " +
                      std::to_string(watches.size()) +
                      " debug registers; at most 2 are free (e.g. 16 bytes aligned to 8)");
  t.save_place();
  const TrapSet user = t.user;
  t.user = TrapSet{{}, watches};
  std::optional<LastWrite> found;
  Result<TimelineStop> st = t.reverse_continue();
  Status inspected = ok_status();
  if (st.ok() && st->cause == StopCause::Watchpoint) {
    Result<Moment> m = t.resolve();
    if (m.ok()) {
      found = LastWrite{*m, t.pc_now()};
      if (at_write) inspected = at_write(*found);
    } else {
      inspected = m.take_error();
    }
  }
  t.user = user;
  // Back where the query started (checkpoint 0 if that fails, as after any
  // failed move); a one-shot command exits instead, so it stays (the return
  // is a replay of the path to the start: up to a whole segment).
  if (t.options.one_shot && st.ok()) {
    t.saved.reset();
    Status traps = t.set_traps(t.user);
    if (!traps.ok()) t.recover();
  } else {
    t.recover();
  }
  if (!st.ok()) return st.take_error();
  if (st->cause == StopCause::Interrupted) return Error::msg("last-write: interrupted");
  if (st->cause == StopCause::Diverged)
    return Error::msg("last-write: " + (st->divergence ? st->divergence->describe() : std::string("replay diverged")));
  TRY(std::move(inspected));
  return found;
}

}  // namespace slsdbg::replay
