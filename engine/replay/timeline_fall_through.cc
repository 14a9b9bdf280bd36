// The instruction before c when it only falls through to c's pc (its only
// way in), reached from the copies kept near c instead of from the
// checkpoint. Every arrival at c.pc follows one at prev, except the
// window's own first instruction when that is c.pc: so at a copy that
// knows j arrivals at c.pc (standing there, or elsewhere but not at prev),
// prev has run j - d times (d = 1 when the window began at c.pc, else 0),
// and prev's last arrival before c is c.n - d. Those counts are lent to
// such copies for one run; the position it reaches must show c's
// registers and stack one step later, or they are taken back and the
// caller names prev as before (timeline_step_over_call.cc). Lending to
// copies at other pcs matters: a step whose c was reached from a copy at
// another pc left copies at c.pc only at c itself, and reaching prev then
// ran from the checkpoint (every other step of a run of fall-throughs).
#include "common/log.h"
#include "engine/replay/timeline_impl.h"

namespace slsdbg::replay {

std::optional<uint64_t> Timeline::Impl::window_first_pc(uint64_t k, uint64_t e) {
  if (e == 0) {
    Result<store::ProcessState> cp = reader.process_state(CheckpointId(k));
    if (!cp.ok() || cp->threads.empty()) return std::nullopt;
    return cp->threads[0].regs.rip;
  }
  Result<store::Event> ev = reader.segment_event(SegmentId(k), e - 1);
  if (!ev.ok()) return std::nullopt;
  if (ev->kind == store::EventKind::Syscall) return ev->pc;   // the address after `syscall`
  if (ev->kind == store::EventKind::Rdtsc) return ev->pc + 2;  // rdtsc is 2 bytes
  return std::nullopt;
}

Result<std::optional<Moment>> Timeline::Impl::fall_through_by_copies(const Moment& c, uint64_t prev,
                                                                    const PositionPrint& at_c) {
  if (!moments || !moment_adoptable(c)) return std::optional<Moment>();
  const std::optional<uint64_t> first = window_first_pc(c.checkpoint, c.event);
  if (!first) return std::optional<Moment>();
  const uint64_t d = *first == c.pc ? 1 : 0;
  if (c.n <= d) return std::optional<Moment>();
  const Moment m{c.checkpoint, c.event, prev, c.n - d};
  if (moments->lend_counts(c, prev, d) == 0) return std::optional<Moment>();
  bool same = false;
  const bool had_copy_at_m = moments->has(m);
  {
    // No copies kept on the way: their names would rest on the lent counts.
    // Only one at m itself, which the caller's landing at m then adopts
    // instead of running there again from the same copy; dropped below if
    // m proves wrong.
    const bool was = keep_copies;
    keep_copies = false;
    keep_only = m;
    Status st = reach(Path{Base::at(m), {Leg{Motion::Step, 1, user}}}, std::nullopt);
    keep_only.reset();
    keep_copies = was;
    if (st.ok() && pc_now() == c.pc && cursor == c.event) {
      Result<PositionPrint> now =
          PositionPrint::take(session->task(), [this](uint64_t a, std::span<uint8_t> b) { hide_traps(a, b); });
      same = now.ok() && *now == at_c;
    }
  }
  if (!same) {
    moments->take_back_counts(c.checkpoint, c.event, prev);
    if (!had_copy_at_m) moments->drop(m);
    SLSDBG_DEBUG("timeline", "reverse step: %s from the copies at %s is not the instruction before it",
                 m.to_string().c_str(), c.to_string().c_str());
    return std::optional<Moment>();
  }
  SLSDBG_DEBUG("timeline", "reverse step: %s by the copies at %s's arrivals", m.to_string().c_str(),
               Moment{0, 0, c.pc, 1}.to_string().substr(4).c_str());
  return std::optional<Moment>(m);
}

}  // namespace slsdbg::replay
