// Reverse step at a function's entry: the previous instruction is usually
// the direct call that entered it, whose last arrival before the entry is
// found by one counted run (timeline_counting.cc). Tracing single steps
// from the entry's previous visit instead would cost the whole previous
// call (minutes for a long loop: GDB's reverse-finish ends with such a
// step). Checked by stepping that call once: it must arrive at the entry
// as exactly the current moment, else the caller traces as before.
#include <cstring>

#include "common/log.h"
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
  // Arrivals at the call up to c, in c's event window.
  TRY(reach_base(Base::at(c), call));
  TRY(fold_counter());
  const uint64_t n = count_value;
  TRY(set_count_probe(std::nullopt));
  if (n == 0) return std::optional<Moment>();
  const Moment m{c.checkpoint, c.event, call, n};
  // One step from m must be c itself (not an earlier arrival at the entry).
  TRY(reach(Path{Base::at(m), {Leg{Motion::Step, 1, user}}}, c.pc));
  const uint64_t arrivals = count_value;
  const uint64_t pc = pc_now();
  TRY(set_count_probe(std::nullopt));
  if (pc != c.pc || arrivals != c.n || cursor != c.event) {
    SLSDBG_DEBUG("timeline", "reverse step: %s is not the call before %s", m.to_string().c_str(), c.to_string().c_str());
    return std::optional<Moment>();
  }
  return std::optional<Moment>(m);
}

}  // namespace slsdbg::replay
