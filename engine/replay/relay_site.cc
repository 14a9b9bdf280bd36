#include "engine/replay/relay_site.h"

#include "engine/replay/patch_site.h"

namespace slsdbg::replay {

namespace {

bool targets_inside(const DecodedFunction& d, uint64_t from, uint64_t to) {  // any in (from, to)
  return d.targets.lower_bound(from + 1) != d.targets.lower_bound(to);
}

// How far before pc a function may start for plan_relay_before: a short
// jump at pc reaches back 126 bytes past its own 2.
constexpr uint64_t kLookBack = 128 + 32;
// Go aligns its functions to 32 bytes and pads between them with int3s.
constexpr uint64_t kFunctionAlign = 16;

// Without a function table: int3 padding before pc, between the function
// holding pc and the one before it. The run must end at an aligned
// address from which straight decoding meets pc (a function's start), so
// it is padding and not bytes of some instruction's immediate; int3s are
// run by no branch of a working program. `end`: the bytes at pc the short
// jump replaces.
Result<PatchSite> plan_relay_before(uint64_t pc, uint64_t end, const CodeReader& read) {
  const uint64_t lo = pc > kLookBack ? pc - kLookBack : 0;
  std::vector<uint8_t> before(pc - lo);
  if (!read(lo, before)) return Error::msg("the code before " + hex_addr(pc) + " is not mapped");
  auto byte_at = [&](uint64_t a) { return before[a - lo]; };
  for (uint64_t start = pc & ~(kFunctionAlign - 1); start >= lo + kJmpLen && start >= kFunctionAlign;
       start -= kFunctionAlign) {
    if (start < pc && byte_at(start) == 0xcc) continue;  // the run must end here
    uint64_t run = start;
    while (run > lo && byte_at(run - 1) == 0xcc) run--;
    // The 5 bytes nearest pc, within a short jump's reach back.
    const uint64_t from = start - kJmpLen;
    if (start - run < kJmpLen || static_cast<int64_t>(from) - static_cast<int64_t>(pc + kShortJmpLen) < -128) continue;
    Result<DecodedFunction> d = decode_ahead(start, end - start, read);
    if (!d.ok() || !d->at(pc)) continue;  // pc is no instruction start seen from there
    PatchSite site{pc, pc, end - pc};
    site.relay = from;
    return site;
  }
  return Error::msg("no int3 padding within a short jump before " + hex_addr(pc));
}

}  // namespace

Result<PatchSite> plan_relay_site(uint64_t pc, const DecodedFunction& d) {
  auto at = std::lower_bound(d.insns.begin(), d.insns.end(), pc,
                             [](const DecodedFunction::Insn& i, uint64_t a) { return i.at < a; });
  if (at == d.insns.end() || at->at != pc) return Error::msg(hex_addr(pc) + " is not an instruction start");
  // Whole instructions from pc covering the short jump; a return or jump
  // only as the last (what follows it is reached by a branch only).
  uint64_t end = pc;
  for (auto s = at; end < pc + kShortJmpLen; ++s) {
    if (s == d.insns.end()) return Error::msg("the function ends within 2 bytes of " + hex_addr(pc));
    if (s != at && std::prev(s)->ends_flow) return Error::msg("a return or jump within 2 bytes of " + hex_addr(pc));
    end = s->at + s->size;
  }
  if (targets_inside(d, pc, end)) return Error::msg("a branch targets the 2 bytes after " + hex_addr(pc));
  // Padding: nops/int3s right after a return or jump, no branch target
  // among them, 5 bytes within a short jump's reach.
  for (auto s = d.insns.begin(); s != d.insns.end(); ++s) {
    if (!s->ends_flow) continue;
    auto run = std::next(s);
    uint64_t from = run == d.insns.end() ? d.range.end : run->at, to = from;
    // Seen from pc on only: a nop there may still be some earlier branch's
    // target; an int3 is run by no branch of a working program.
    while (run != d.insns.end() && run->padding && (d.whole || run->int3) && !d.targets.count(run->at)) {
      to = run->at + run->size;
      ++run;
    }
    if (to - from < kJmpLen) continue;
    const int64_t rel = static_cast<int64_t>(from) - static_cast<int64_t>(pc + kShortJmpLen);
    if (rel < -128 || rel > 127) continue;
    if (from < end && from + kJmpLen > pc) continue;  // overlaps the moved bytes
    PatchSite site{pc, pc, end - pc};
    site.relay = from;
    return site;
  }
  return Error::msg("no padding within a short jump of " + hex_addr(pc));
}

Result<PatchSite> plan_one_instruction_site(uint64_t pc, const CodeReader& read) {
  Result<DecodedFunction> d = decode_function(pc, read);
  // Without a function table (Go): pc's instruction and the padding after
  // it, within a short jump's reach.
  if (!d.ok()) d = decode_ahead(pc, kShortJmpLen + 127 + kJmpLen + 15, read);
  if (!d.ok()) return d.error();
  const DecodedFunction::Insn* at = d->at(pc);
  if (!at) return Error::msg(hex_addr(pc) + " is not an instruction start");
  if (at->size < kShortJmpLen) return Error::msg("the instruction at " + hex_addr(pc) + " is 1 byte long");
  PatchSite site = PatchSite::at(pc, at->size);
  if (at->size < kJmpLen) {
    Result<PatchSite> relay = plan_relay_site(pc, *d);
    if (!relay.ok() && !d->whole) {
      Result<PatchSite> back = plan_relay_before(pc, pc + at->size, read);
      if (!back.ok()) return Error::msg(relay.error().message + "; " + back.error().message);
      relay = back;
    }
    site = TRY(std::move(relay));
  }
  // Whether the instruction can move (a `loop`, a far branch cannot).
  uint8_t code[32] = {};
  if (!read(pc, code)) return Error::msg("the code at " + hex_addr(pc) + " is not mapped");
  Emitter e(pc + kTrampPage);
  TRY(emit_from_pc(code, site, e));
  return site;
}

Result<PatchSite> plan_thread_checkpoint_site(uint64_t pc, const CodeReader& read) {
  if (Result<PatchSite> one = plan_one_instruction_site(pc, read); one.ok()) return one;
  return plan_checkpoint_site(pc, read);
}

Result<PatchSite> plan_checkpoint_site(uint64_t pc, const CodeReader& read) {
  Result<PatchSite> site = plan_patch_site(pc, read);
  Result<DecodedFunction> d = decode_function(pc, read);
  if (!d.ok()) {
    // No function table (Go): a `jmp`/`jcc` at pc has no own site; the
    // jump inside its instruction, relayed to int3 padding, has.
    if (site.ok()) return site;
    Result<PatchSite> one = plan_one_instruction_site(pc, read);
    if (one.ok()) return one;
    return Error::msg(site.error().message + "; " + one.error().message);
  }
  if (site.ok() && !targets_inside(*d, site->anchor, site->end())) return site;
  Result<PatchSite> relay = plan_relay_site(pc, *d);
  if (relay.ok()) return relay;
  if (site.ok()) return site;
  return Error::msg(site.error().message + "; no relay: " + relay.error().message);
}

}  // namespace slsdbg::replay
