// The instruction before c when c's pc is a branch target with few ways in:
// a loop's first instruction is reached only by the loop's backward jump
// (the code before it jumps to the condition), so that jump ran last; the
// condition is reached by the increment's fall-through and once by the
// jump into the loop. The fall-back, single steps from c.pc's previous
// arrival, costs a whole iteration (thousands of steps, ~1 s for a loop
// calling a 6,000-instruction function). Ways in are the decoded function's
// direct jumps to c.pc and the fall-through from the instruction before it
// (a plain one or a jcc); a call's return, a jump table's entry or an
// indirect jump anywhere in the function leaves it to the caller. Each way
// is tried, the fall-through first, then the nearest jump: its last arrival
// before c by one counted run, kept only when one step from there is c
// itself (verified_before), so a wrong guess costs a run, never a wrong
// answer.
#include <algorithm>
#include <vector>

#include "common/log.h"
#include "engine/replay/timeline_impl.h"

namespace slsdbg::replay {

namespace {
// More ways in (a switch's common tail) cost a counted run each: trace instead.
constexpr size_t kMaxWays = 3;
}  // namespace

Result<std::optional<Moment>> Timeline::Impl::jumped_before(const Moment& c, const DecodedFunction& d) {
  if (d.indirect_jump || d.table_targets.count(c.pc) || c.pc == d.range.start || !d.at(c.pc))
    return std::optional<Moment>();
  std::optional<uint64_t> fall;
  std::vector<uint64_t> jumps;
  for (const DecodedFunction::Insn& i : d.insns) {
    if (i.call_target == c.pc) return std::optional<Moment>();  // a call into the middle
    if (i.at + i.size == c.pc && !i.ends_flow) {
      if (!i.plain && !i.jump_target) return std::optional<Moment>();  // a call returns here, or a trap
      fall = i.at;
    } else if (i.jump_target == c.pc) {
      jumps.push_back(i.at);
    }
  }
  // Nearest first: a loop's backward jump sits just after its body.
  std::sort(jumps.begin(), jumps.end(), [&](uint64_t a, uint64_t b) {
    return (a > c.pc ? a - c.pc : c.pc - a) < (b > c.pc ? b - c.pc : c.pc - b);
  });
  std::vector<uint64_t> ways;
  if (fall) ways.push_back(*fall);
  ways.insert(ways.end(), jumps.begin(), jumps.end());
  if (ways.empty() || ways.size() > kMaxWays) return std::optional<Moment>();
  for (uint64_t from : ways) {
    std::optional<Moment> m = TRY(verified_before(c, from));
    SLSDBG_DEBUG("timeline", "reverse step: %s, one of %zu ways to %s%s", Moment{0, 0, from, 1}.to_string().substr(4).c_str(),
                 ways.size(), c.to_string().c_str(), m ? "" : ", did not run last");
    if (m) return m;
  }
  return std::optional<Moment>();
}

}  // namespace slsdbg::replay
