// Reverse step at a function's entry: the previous instruction is usually
// the direct call that entered it, whose last arrival before the entry is
// found by one counted run (timeline_counting.cc). Tracing single steps
// from the entry's previous visit instead would cost the whole previous
// call (minutes for a long loop: GDB's reverse-finish ends with such a
// step). Checked by stepping that call once: it must arrive at the entry
// as exactly the current moment, else the caller traces as before.
//
// The same by the code's shape (previous_by_code): where the function,
// decoded from its start (code_function.h), says the instruction before the
// current pc is one that only falls through to it (and no branch targets
// pc), or a direct call whose callee has a single `ret` (pc is its return
// address), that instruction's last arrival is the previous one. Checked
// the same way by one step.
#include <algorithm>
#include <cstring>

#include "common/log.h"
#include "engine/replay/position_print.h"
#include "engine/replay/timeline_impl.h"

namespace slsdbg::replay {

Result<std::optional<Moment>> Timeline::Impl::call_before(const Moment& c) {
  if (!counting_allowed()) return std::optional<Moment>();
  const user_regs_struct r = TRY(session->task().regs());
  if (r.rip != c.pc) return std::optional<Moment>();
  uint8_t ret_bytes[8] = {};
  if (!session->task().read_memory(RemoteAddr(r.rsp), ret_bytes).ok()) return std::optional<Moment>();
  uint64_t ret = 0;
  std::memcpy(&ret, ret_bytes, 8);
  const uint64_t call = ret - 5;
  uint8_t insn[5] = {};
  if (!session->task().read_memory(RemoteAddr(call), insn).ok()) return std::optional<Moment>();
  hide_traps(call, insn);
  int32_t rel = 0;
  std::memcpy(&rel, insn + 1, 4);
  if (insn[0] != 0xe8 || ret + static_cast<int64_t>(rel) != c.pc) return std::optional<Moment>();
  return verified_before(c, call);
}

// The last arrival at `pc` in c's event window before c (one counted run).
Result<std::optional<Moment>> Timeline::Impl::last_arrival_before(const Moment& c, uint64_t pc) {
  TRY(reach_base(Base::at(c), pc));
  TRY(fold_counter());
  const uint64_t n = count_value;
  TRY(set_count_probe(std::nullopt));
  if (n == 0) return std::optional<Moment>();
  return std::optional<Moment>(Moment{c.checkpoint, c.event, pc, n});
}

// The last arrival at `prev` before c, if one step from it is c itself.
Result<std::optional<Moment>> Timeline::Impl::verified_before(const Moment& c, uint64_t prev) {
  const std::optional<Moment> last = TRY(last_arrival_before(c, prev));
  if (!last) return std::optional<Moment>();
  const Moment m = *last;
  // One step from m must be c itself (not an earlier arrival at c's pc).
  TRY(reach(Path{Base::at(m), {Leg{Motion::Step, 1, user}}}, c.pc));
  const uint64_t arrivals = count_value;
  const uint64_t pc = pc_now();
  TRY(set_count_probe(std::nullopt));
  if (pc != c.pc || arrivals != c.n || cursor != c.event) {
    SLSDBG_DEBUG("timeline", "reverse step: %s is not the instruction before %s", m.to_string().c_str(),
                 c.to_string().c_str());
    return std::optional<Moment>();
  }
  return std::optional<Moment>(m);
}

Result<std::optional<Moment>> Timeline::Impl::fall_through_before(const Moment& c, uint64_t prev) {
  auto print = [this]() {
    return PositionPrint::take(session->task(), [this](uint64_t a, std::span<uint8_t> b) { hide_traps(a, b); });
  };
  // Usually the process stands at c already (the previous reverse step
  // went there): its print is taken in place, without a fork and a run.
  const bool here = known && *known == c && path.base == Base::at(c) && path.legs.empty() && !at_exit && !at_end &&
                    segment == c.checkpoint && cursor == c.event && pc_now() == c.pc;
  if (!here) TRY(reach_base(Base::at(c), std::nullopt));
  const PositionPrint at_c = TRY(print());
  if (std::optional<Moment> m = TRY(fall_through_by_copies(c, prev, at_c))) return m;
  for (uint64_t n = c.n; n + 1 >= c.n && n >= 1; n--) {
    const Moment m{c.checkpoint, c.event, prev, n};
    if (!reach(Path{Base::at(m), {Leg{Motion::Step, 1, user}}}, std::nullopt).ok()) continue;
    if (pc_now() == c.pc && cursor == c.event && TRY(print()) == at_c) return std::optional<Moment>(m);
  }
  return std::optional<Moment>();
}

Result<std::optional<Moment>> Timeline::Impl::previous_by_code(const Moment& c) {
  if (!counting_allowed()) return std::optional<Moment>();
  Result<DecodedFunction> d = decode_function(c.pc, code_reader());
  if (!d.ok()) return std::optional<Moment>();
  if (d->targets.count(c.pc)) return jumped_before(c, *d);
  if (c.pc == d->range.start || d->indirect_jump || !d->at(c.pc))
    return std::optional<Moment>();  // not known
  auto it = std::lower_bound(d->insns.begin(), d->insns.end(), c.pc,
                             [](const DecodedFunction::Insn& i, uint64_t a) { return i.at < a; });
  if (it == d->insns.begin()) return std::optional<Moment>();
  const DecodedFunction::Insn prev = *std::prev(it);
  if (prev.at + prev.size != c.pc) return std::optional<Moment>();
  if (prev.plain) {
    // c's pc is reached only from prev, so prev's last arrival is c's own
    // count (one less if the window began at c's pc). Tried by one step
    // from each and the position's print: counting prev while the target's
    // stub sits on c's pc traps at every visit (their patch sites overlap).
    if (std::optional<Moment> m = TRY(fall_through_before(c, prev.at))) return m;
    return verified_before(c, prev.at);
  }
  if (!prev.call_target) return std::optional<Moment>();
  // A return address: the callee's only `ret` ran last.
  Result<DecodedFunction> callee = decode_function(*prev.call_target, code_reader());
  if (!callee.ok() || callee->range.start != *prev.call_target || callee->indirect_jump) return std::optional<Moment>();
  std::optional<uint64_t> ret;
  for (const DecodedFunction::Insn& i : callee->insns) {
    if (!i.is_ret) continue;
    if (ret) return std::optional<Moment>();
    ret = i.at;
  }
  if (!ret) return std::optional<Moment>();
  // GDB goes on with a reverse-continue to the callee's entry, then a
  // reverse step to the call: counted beside this run, both start from its copies.
  set_companions({*prev.call_target, prev.at});
  return verified_before(c, *ret);
}

}  // namespace slsdbg::replay
