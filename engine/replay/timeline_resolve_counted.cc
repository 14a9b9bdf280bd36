// Naming the current moment without re-running a long path of Continue
// legs. A breakpoint inserted inside an event window (GDB's disable/enable,
// an ignore count) counts nothing until the next event, so each of its stops
// there pushes a Continue leg, and resolve() used to replay every one of
// them: a stop each, ~1 ms apiece, over a second for ~1000 legs.
//
// When the path's last L legs are Continues with the current pc's
// breakpoint (and no watchpoint), with single steps between them, and the path stayed in its base's event
// window, the current position is that pc's arrival number c0 + L of the
// window: c0 arrivals up to the start of those legs (one counted run, the
// stub in the tracee) and one per leg, if no other breakpoint stopped a leg
// (GDB's breakpoint in ld.so rarely runs). The process is then taken there
// by a counted run to that moment, and must show the same registers and
// stack as before; otherwise the caller replays the path as it always did.
#include <cstring>

#include "common/log.h"
#include "engine/replay/timeline_impl.h"

namespace slsdbg::replay {

namespace {
// What must match between the position before and after: the registers
// (RF aside) and this much of the stack above rsp.
constexpr size_t kStackCompared = 512;

// The answer "replay the path instead".
const std::optional<Moment> kReplayPath;

struct Fingerprint {
  user_regs_struct regs{};
  std::vector<uint8_t> stack;
};

bool same(const Fingerprint& a, const Fingerprint& b) {
  return std::memcmp(&a.regs, &b.regs, sizeof a.regs) == 0 && a.stack == b.stack;
}
}  // namespace

Result<std::optional<Moment>> Timeline::Impl::resolve_counted(const Path& p, uint64_t pc) {
  Result<std::optional<Moment>> m = resolve_counted_once(p, pc);
  if (m.ok()) return m;
  SLSDBG_DEBUG("timeline", "resolve by counting failed (%s); replaying the path", m.error().message.c_str());
  return std::optional<Moment>{};
}

Result<std::optional<Moment>> Timeline::Impl::resolve_counted_once(const Path& p, uint64_t pc) {
  auto fingerprint = [this]() -> Result<Fingerprint> {
    Fingerprint f;
    f.regs = TRY(session->task().regs());
    f.regs.eflags &= ~0x10000ull;
    f.stack.resize(kStackCompared);
    if (!session->task().read_memory(RemoteAddr(f.regs.rsp), f.stack).ok()) f.stack.clear();
    else hide_traps(f.regs.rsp, f.stack);
    return f;
  };
  if (p.legs.empty() || !counting_allowed() || last.cause != StopCause::Breakpoint || last.pc != pc)
    return kReplayPath;
  // The trailing legs: Continues stopped at pc, each after GDB's single
  // step over the breakpoint (a Step leg of 1, which does not arrive at pc
  // again); the legs before (a few steps, say) are replayed as they are.
  size_t first = p.legs.size();
  uint64_t legs = 0;
  while (first > 0) {
    const Leg& leg = p.legs[first - 1];
    const bool stop_at_pc = leg.motion == Motion::Continue && leg.traps.watches.empty() && leg.traps.breakpoints.count(pc);
    const bool step_over = leg.motion == Motion::Step && leg.count == 1 && legs > 0;
    if (!stop_at_pc && !step_over) break;
    if (stop_at_pc) legs += leg.count;
    first--;
  }
  if (legs == 0) return kReplayPath;
  const uint64_t k = segment, e = cursor;
  if (p.base.k != k || p.base.e != e) return kReplayPath;  // the legs crossed an event
  const Fingerprint before = TRY(fingerprint());
  // Arrivals at pc up to the last of the other legs, counted by a stub (the
  // user's int3 on pc would trap at each one instead: set aside for this run).
  const TrapSet saved_user = user;
  user.breakpoints.erase(pc);
  Status counted = reach(Path{p.base, std::vector<Leg>(p.legs.begin(), p.legs.begin() + first)}, pc);
  user = saved_user;
  TRY(std::move(counted));
  if (segment != k || cursor != e) return kReplayPath;
  TRY(fold_counter());
  const uint64_t c0 = count_value;
  TRY(set_count_probe(std::nullopt));
  const Moment m{k, e, pc, c0 + legs};
  TRY(reach_base(Base::at(m), std::nullopt));
  TRY(set_traps(user));
  const Fingerprint after = TRY(fingerprint());
  if (pc_now() != pc || !same(before, after)) {
    SLSDBG_DEBUG("timeline", "resolve: %s by counting is not the position (%llu legs); replaying the path",
                 m.to_string().c_str(), (unsigned long long)legs);
    return kReplayPath;
  }
  SLSDBG_DEBUG("timeline", "resolve: %s by one counted run instead of %llu legs (%llu Continue)",
               m.to_string().c_str(), (unsigned long long)(p.legs.size() - first), (unsigned long long)legs);
  return std::optional<Moment>{m};
}

}  // namespace slsdbg::replay
