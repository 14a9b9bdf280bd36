#include "engine/replay/head_second_part.h"

#include <algorithm>
#include <cstdlib>

#include "common/log.h"
#include "engine/replay/head_progress.h"
#include "engine/replay/head_size.h"

namespace slsdbg::replay {

namespace {

constexpr uint64_t kBelowRsp = 128;
constexpr uint64_t kAboveRsp = 384;
constexpr size_t kRegisterValues = 15;

// A second part shorter than this gains less than its stop costs.
constexpr uint64_t kMinSecondNs = 1'000'000;

}  // namespace

std::vector<uint64_t> progress_values(const user_regs_struct& r, uint64_t rsp, const ReadWords& read) {
  std::vector<uint64_t> v{r.rax, r.rbx, r.rcx, r.rdx, r.rsi, r.rdi, r.rbp, r.r8,
                          r.r9,  r.r10, r.r11, r.r12, r.r13, r.r14, r.r15};
  std::vector<uint64_t> words((kBelowRsp + kAboveRsp) / 8);
  const std::span<uint8_t> bytes(reinterpret_cast<uint8_t*>(words.data()), words.size() * 8);
  if (read(rsp - kBelowRsp, bytes).ok()) v.insert(v.end(), words.begin(), words.end());
  return v;
}

// Values that count their way to the checkpoint say how much of the tail is
// left; a probe of a tenth of that keeps those that move on at their rate,
// and a last part runs 90% of what is then left (SLSDBG_REPLAY_HEAD_SECOND:
// another share, 0: none). The value must still be short of its target
// after it.
Result<SecondPart> run_second_part(const user_regs_struct& target_regs, uint64_t first_ns, uint64_t hint_ns,
                                   const std::vector<uint64_t>& start, const SecondPartRun& io,
                                   const std::string& where) {
  SecondPart out;
  double share = 0.9;
  if (const char* e = std::getenv("SLSDBG_REPLAY_HEAD_SECOND")) share = std::strtod(e, nullptr);  // tests of its fallback
  if (share <= 0) return out;
  const std::vector<uint64_t> target = progress_values(target_regs, target_regs.rsp, io.recorded);
  std::vector<uint64_t> now = progress_values(TRY(io.regs()), target_regs.rsp, io.live);
  // A counter or a pointer moves at most this far over the tail: 64 per ns of its CPU time.
  const uint64_t max_distance = 64 * hint_ns;
  const std::vector<ProgressGuess> candidates = progress_candidates(start, now, target, head_fraction(), max_distance);
  if (candidates.empty()) return out;
  double f = 0;
  for (const ProgressGuess& c : candidates) f = std::max(f, c.fraction);
  const double rest = static_cast<double>(first_ns) * (1 - f) / f;
  const auto probe = static_cast<uint64_t>(std::max(0.1 * rest, 300'000.0));
  if (static_cast<double>(probe) > 0.5 * rest) return out;  // too little left to gain from
  if (!TRY(io.run(probe, "probe"))) {
    out.end = SecondPartEnd::Stopped;
    return out;
  }
  out.end = SecondPartEnd::Ran;
  out.ns = probe;
  now = progress_values(TRY(io.regs()), target_regs.rsp, io.live);
  const std::optional<ProgressGuess> guess = confirm_progress(candidates, start, now, target, first_ns, probe);
  if (!guess) return out;
  const uint64_t ran = first_ns + probe;
  const double left = static_cast<double>(ran) * (1 - guess->fraction) / guess->fraction;
  const double last_d = share * left - 150'000.0;
  if (last_d < static_cast<double>(kMinSecondNs)) return out;
  const auto last = static_cast<uint64_t>(last_d);
  if (!TRY(io.run(last, "last part"))) {
    out.end = SecondPartEnd::Stopped;
    return out;
  }
  const char* what = guess->index < kRegisterValues ? "register" : "stack word";
  const std::vector<uint64_t> later = progress_values(TRY(io.regs()), target_regs.rsp, io.live);
  const double at = guess->index < later.size()
                        ? progress_fraction(start[guess->index], later[guess->index], target[guess->index])
                        : -1;
  if (at > guess->fraction && at < 1) {
    SLSDBG_DEBUG("replay", "%s: %llu us more ran unpatched (a %s %.3f -> %.3f of its way)", where.c_str(),
                 (unsigned long long)(probe + last) / 1000, what, f, at);
    out.ns = probe + last;
    return out;
  }
  SLSDBG_DEBUG("replay", "%s: after the head's last part the %s stood at %.3f of its way, not short of it",
               where.c_str(), what, at);
  out.end = SecondPartEnd::Past;
  return out;
}

}  // namespace slsdbg::replay
