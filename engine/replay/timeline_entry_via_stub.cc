// Reverse step at a function's entry that its caller's call did not name:
// the call went to a stub in between, a PLT entry (`jmp *GOT`) or, on the
// first call, the dynamic linker's lazy resolver, which ends with an
// indirect `jmp` to the entry (and is itself entered by the PLT's jumps,
// with the return address two words under the stack's top). Neither
// call_before nor the decoded code knows that jump, and tracing from the
// previous event would single-step everything the program did since
// (gzip's first write: millions of instructions, minutes). The caller's
// call is known from the return address, though: its last arrival before
// the entry is found by one counted run, and single steps from it reach
// the entry through the stub in a few instructions (a few thousand through
// the resolver). The last of those steps is the previous instruction; the
// trace's end is checked to be the current moment by counting the entry's
// arrivals.
#include <cstring>

#include "common/log.h"
#include "engine/replay/timeline_impl.h"

namespace slsdbg::replay {

namespace {
// The resolver's _dl_fixup takes a few thousand instructions; past this
// the call did not lead to the entry directly, and the general trace runs.
constexpr size_t kMaxStubSteps = 50000;
// Stack words that may hold the caller's return address at the entry: the
// top, or two words down (the resolver's entry under the PLT's pushes).
constexpr size_t kReturnSlots = 3;

// The call instruction ending at return address `ret`: `call rel32` (e8)
// or `call *disp32(%rip)` (ff 15, a -fno-plt call through the GOT);
// nullopt for any other bytes.
std::optional<uint64_t> call_ending_at(const CodeReader& read, uint64_t ret) {
  uint8_t b[6] = {};
  if (!read(ret - 6, b)) return std::nullopt;
  if (b[1] == 0xe8) return ret - 5;
  if (b[0] == 0xff && b[1] == 0x15) return ret - 6;
  return std::nullopt;
}
}  // namespace

Result<std::optional<TimelineStop>> Timeline::Impl::entry_via_stub(const Moment& c) {
  if (!counting_allowed()) return std::optional<TimelineStop>();
  const user_regs_struct r = TRY(session->task().regs());
  if (r.rip != c.pc) return std::optional<TimelineStop>();
  // Only at a function's first instruction (its FDE's start: Capstone 4
  // cannot decode the resolver's xsavec) is the stack's top a return
  // address, or near it: the resolver is entered by a jump, under the two
  // words the PLT pushed.
  const Result<CodeFunction> f = function_around(c.pc, code_reader());
  if (!f.ok() || f->start != c.pc) return std::optional<TimelineStop>();
  uint8_t top[8 * kReturnSlots] = {};
  if (!session->task().read_memory(RemoteAddr(r.rsp), top).ok()) return std::optional<TimelineStop>();
  std::vector<uint64_t> calls;
  for (size_t i = 0; i < kReturnSlots; i++) {
    uint64_t ret = 0;
    std::memcpy(&ret, top + 8 * i, 8);
    if (const std::optional<uint64_t> call = call_ending_at(code_reader(), ret)) calls.push_back(*call);
  }
  for (const uint64_t call : calls)
    if (std::optional<TimelineStop> st = TRY(entry_from_call(c, call))) return st;
  return std::optional<TimelineStop>();
}

// The step before c traced from the last arrival at `call` before it, if
// that trace reaches c within kMaxStubSteps and without an event.
Result<std::optional<TimelineStop>> Timeline::Impl::entry_from_call(const Moment& c, uint64_t call) {
  const std::optional<Moment> last = TRY(last_arrival_before(c, call));
  if (!last) return std::optional<TimelineStop>();
  const Moment m = *last;
  TRY(reach_base(Base::at(m), std::nullopt));
  const uint64_t start_cursor = cursor;
  bool arrived = false;
  size_t steps = 0;
  const std::vector<uint64_t> pcs = TRY(trace_steps([&](DriveResult& dr) -> Result<bool> {
    if (dr.halt != Halt::Paused || why != PauseWhy::Step || cursor != start_cursor) return true;
    arrived = pc_now() == c.pc;
    return arrived || ++steps >= kMaxStubSteps;
  }));
  if (!arrived || pcs.size() < 2) {
    SLSDBG_DEBUG("timeline", "reverse step: %s does not reach %s through a stub", m.to_string().c_str(),
                 c.to_string().c_str());
    return std::optional<TimelineStop>();
  }
  // The trace's end must be c itself, not an earlier arrival at its pc.
  const Path p{Base::at(m), {Leg{Motion::Step, pcs.size() - 1, user}}};
  TRY(reach(p, c.pc));
  const uint64_t arrivals = count_value;
  TRY(set_count_probe(std::nullopt));
  if (pc_now() != c.pc || arrivals != c.n || cursor != c.event) return std::optional<TimelineStop>();
  return std::optional<TimelineStop>(TRY(land_before_last(Base::at(m), pcs)));
}

}  // namespace slsdbg::replay
