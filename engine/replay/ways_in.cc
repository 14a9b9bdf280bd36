#include "engine/replay/ways_in.h"

#include <algorithm>
#include <cstring>

namespace slsdbg::replay {

namespace {

// The call that returned to `ret` entered pc: the instruction ending at ret
// in its decoded caller, a direct call to pc or an indirect one (only when
// pc is known to be a function's start); without a caller's unwind table,
// a direct call at ret - 5 whose target is pc.
std::optional<uint64_t> call_into(uint64_t pc, uint64_t ret, bool pc_starts_function, const CodeReader& read) {
  if (Result<DecodedFunction> caller = decode_function(ret - 1, read); caller.ok()) {
    for (const DecodedFunction::Insn& i : caller->insns) {
      if (i.at + i.size != ret) continue;
      if (i.call_target == pc) return i.at;
      const bool indirect_call = !i.plain && !i.call_target && !i.jump_target && !i.ends_flow && !i.int3;
      if (indirect_call && pc_starts_function) return i.at;
      return std::nullopt;
    }
    return std::nullopt;
  }
  uint8_t call[5] = {};
  if (!read(ret - 5, call) || call[0] != 0xe8) return std::nullopt;
  int32_t rel = 0;
  std::memcpy(&rel, call + 1, 4);
  if (ret + static_cast<int64_t>(rel) != pc) return std::nullopt;
  return ret - 5;
}

// The `ret`s of the function starting at callee.
std::vector<uint64_t> returns_of(uint64_t callee, const CodeReader& read) {
  std::vector<uint64_t> rets;
  Result<DecodedFunction> d = decode_function(callee, read);
  if (!d.ok() || d->range.start != callee || d->indirect_jump) return rets;
  for (const DecodedFunction::Insn& i : d->insns)
    if (i.is_ret) rets.push_back(i.at);
  return rets;
}

// The instructions that may run just before pc, likeliest first.
std::vector<uint64_t> instructions_into(uint64_t pc, std::optional<uint64_t> at_rsp, const CodeReader& read) {
  std::vector<uint64_t> ways;
  auto add = [&ways](uint64_t a) {
    if (std::find(ways.begin(), ways.end(), a) == ways.end()) ways.push_back(a);
  };
  Result<DecodedFunction> d = decode_function(pc, read);
  const bool decoded = d.ok() && d->at(pc);
  if (at_rsp && (!decoded || d->range.start == pc))
    if (std::optional<uint64_t> call = call_into(pc, *at_rsp, decoded, read)) add(*call);
  if (!decoded) return ways;
  std::vector<uint64_t> jumps;
  for (const DecodedFunction::Insn& i : d->insns) {
    if (i.at + i.size == pc && !i.ends_flow) {
      if (i.plain || i.jump_target) add(i.at);
      else if (i.call_target)  // pc is the return address: one of the callee's rets ran last
        for (uint64_t r : returns_of(*i.call_target, read)) add(r);
    } else if (i.jump_target == pc) {
      jumps.push_back(i.at);
    }
  }
  // Nearest first: a loop's backward jump sits just after its body.
  std::sort(jumps.begin(), jumps.end(), [pc](uint64_t a, uint64_t b) {
    return (a > pc ? a - pc : pc - a) < (b > pc ? b - pc : pc - b);
  });
  for (uint64_t j : jumps) add(j);
  return ways;
}

// The instruction starting at pc, as an iterator (its neighbours are
// walked); end() when none starts there.
std::vector<DecodedFunction::Insn>::const_iterator insn_at(const DecodedFunction& d, uint64_t pc) {
  auto it = std::lower_bound(d.insns.begin(), d.insns.end(), pc,
                             [](const DecodedFunction::Insn& i, uint64_t a) { return i.at < a; });
  return it != d.insns.end() && it->at == pc ? it : d.insns.end();
}

// Where the way at `way` is counted: itself, or the nearest countable
// instruction before it in straight-line code of its function.
std::optional<WayIn> count_site(uint64_t way, const CodeReader& read, const std::function<bool(uint64_t)>& countable) {
  if (countable(way)) return WayIn{way, 0};
  Result<DecodedFunction> d = decode_function(way, read);
  if (!d.ok()) return std::nullopt;
  auto it = insn_at(*d, way);
  if (it == d->insns.end()) return std::nullopt;
  for (uint64_t steps = 1; steps <= kMaxCountSiteSteps && it != d->insns.begin(); steps++) {
    const DecodedFunction::Insn& later = *it;
    const DecodedFunction::Insn& before = *std::prev(it);
    // `later` must be reached only from `before`, which only falls through.
    if (d->targets.count(later.at) || !before.plain || before.at + before.size != later.at) return std::nullopt;
    if (countable(before.at)) return WayIn{before.at, steps};
    --it;
  }
  return std::nullopt;
}

}  // namespace

std::vector<WayIn> ways_in(uint64_t pc, std::optional<uint64_t> at_rsp, const CodeReader& read,
                           const std::function<bool(uint64_t)>& countable) {
  std::vector<uint64_t> all = instructions_into(pc, at_rsp, read);
  std::vector<WayIn> out;
  for (uint64_t w : all) {
    if (out.size() == kMaxWaysIn) break;
    if (std::optional<WayIn> site = count_site(w, read, countable)) out.push_back(*site);
  }
  return out;
}

std::optional<WayIn> later_count_site(uint64_t pc, const CodeReader& read,
                                      const std::function<bool(uint64_t)>& countable) {
  Result<DecodedFunction> d = decode_function(pc, read);
  if (!d.ok()) return std::nullopt;
  auto it = insn_at(*d, pc);
  if (it == d->insns.end()) return std::nullopt;
  for (uint64_t steps = 1; steps <= kMaxCountSiteSteps; steps++) {
    const DecodedFunction::Insn& before = *it;
    if (++it == d->insns.end()) return std::nullopt;
    const DecodedFunction::Insn& later = *it;
    // `later` must be reached from `before`, which only falls through.
    if (d->targets.count(later.at) || !before.plain || before.at + before.size != later.at) return std::nullopt;
    if (later.at >= pc + 5 && countable(later.at)) return WayIn{later.at, steps};
  }
  return std::nullopt;
}

}  // namespace slsdbg::replay
