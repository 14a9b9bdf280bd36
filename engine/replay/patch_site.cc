#include "engine/replay/patch_site.h"

#include <algorithm>
#include <vector>

namespace slsdbg::replay {

namespace {
constexpr uint64_t kMaxAnchorDistance = 24;  // bytes before pc
}  // namespace

namespace {

Result<PatchSite> plan_anchored(uint64_t pc, const DecodedFunction& d, const CodeReader& read, const Error& own);

}  // namespace

Result<PatchSite> plan_patch_site(uint64_t pc, const CodeReader& read) {
  uint8_t here[32] = {};
  if (!read(pc, here)) return Error::msg("the code at " + hex_addr(pc) + " is not mapped");
  Emitter scratch(pc + kTrampPage);
  Result<uint64_t> own = emit_displaced(here, pc, scratch);
  if (own.ok()) {
    // A branch into the bytes after pc would run the jump's int3 tail (a
    // -O0 loop's `addl $1, i` before the condition the loop's entry jumps
    // to): an anchor before pc that ends at pc's own instruction is then
    // sound, where there is one; else there is no site (the caller's relay
    // or breakpoint). Not the site anyway: the patched run failed, and a
    // counting copy took the tail's int3 for a breakpoint and went on from
    // the middle of an instruction (append_lookup's lookup()).
    const PatchSite at = PatchSite::at(pc, *own);
    Result<DecodedFunction> d = decode_function(pc, read);
    if (!d.ok() || d->targets.lower_bound(pc + 1) == d->targets.lower_bound(at.end())) return at;
    return plan_anchored(pc, *d, read, Error::msg("a branch targets the bytes after " + hex_addr(pc)));
  }
  // Anchored: decode the function from its start.
  const DecodedFunction d = TRY_CTX(decode_function(pc, read), own.error().message);
  return plan_anchored(pc, d, read, own.error());
}

Result<PatchSite> plan_anchored_site(uint64_t pc, const CodeReader& read) {
  const DecodedFunction d = TRY(decode_function(pc, read));
  return plan_anchored(pc, d, read, Error::msg("an anchor before " + hex_addr(pc)));
}

namespace {

Result<PatchSite> plan_anchored(uint64_t pc, const DecodedFunction& d, const CodeReader& read, const Error& own_error) {
  const Result<uint64_t> own = Result<uint64_t>(own_error);
  const CodeFunction f = d.range;
  if (d.indirect_jump) return Error::msg(own.error().message + "; its function has an indirect jump");
  auto at_pc = std::find_if(d.insns.begin(), d.insns.end(), [&](const auto& s) { return s.at == pc; });
  if (at_pc == d.insns.end()) return Error::msg(own.error().message + "; " + hex_addr(pc) + " is not an instruction start");
  std::vector<uint8_t> code(f.end - f.start);
  if (!read(f.start, code)) return Error::msg(own.error().message + "; its function is not mapped whole");
  std::string why = "no anchor before it";
  // The nearest anchor first: the fewest instructions run before the check.
  for (auto it = at_pc; it != d.insns.begin();) {
    --it;
    const uint64_t anchor = it->at;
    if (pc - anchor > kMaxAnchorDistance || !it->plain) break;  // only fall-through from the anchor to pc
    // Whole instructions from the anchor covering 5 bytes and pc; a return
    // or jump only as the last of them.
    uint64_t end = anchor;
    bool flow_ok = true;
    for (auto s = it; s != d.insns.end() && (end < anchor + kJmpLen || end <= pc); ++s) {
      if (!flow_ok) break;
      if (s->ends_flow) flow_ok = false;
      auto next = std::next(s);
      end = next == d.insns.end() ? f.end : next->at;
    }
    if (end < anchor + kJmpLen || end <= pc) {
      why = "a return or jump within 5 bytes of " + hex_addr(anchor);
      continue;
    }
    if (d.targets.lower_bound(anchor + 1) != d.targets.lower_bound(end)) {
      why = "a branch targets the bytes after " + hex_addr(anchor);
      continue;
    }
    const PatchSite site{anchor, pc, end - anchor};
    std::vector<uint8_t> moved(code.begin() + static_cast<long>(anchor - f.start),
                               code.begin() + static_cast<long>(end - f.start));
    moved.resize(std::max<size_t>(moved.size(), 32), 0x90);
    Emitter e(pc + kTrampPage);
    Status st = emit_before_pc(moved, site, e);
    if (st.ok()) st = emit_from_pc(moved, site, e);
    if (!st.ok()) {
      why = st.error().message;
      continue;
    }
    return site;
  }
  return Error::msg(own.error().message + "; " + why);
}

}  // namespace

}  // namespace slsdbg::replay
