#include "engine/replay/trampoline_code.h"

#include <capstone/capstone.h>

#include <algorithm>
#include <cinttypes>
#include <climits>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <utility>

#include "engine/replay/program_ranges.h"
#include "engine/replay/vex_insn.h"

namespace slsdbg::replay {

namespace {

bool fits_rel32(int64_t d) { return d >= INT32_MIN && d <= INT32_MAX; }

struct Capstone {
  csh h = 0;
  bool ok = false;
  Capstone() {
    ok = cs_open(CS_ARCH_X86, CS_MODE_64, &h) == CS_ERR_OK;
    if (ok) cs_option(h, CS_OPT_DETAIL, CS_OPT_ON);
  }
  ~Capstone() {
    if (ok) cs_close(&h);
  }
};

bool in_group(const cs_insn& insn, uint8_t group) {
  for (uint8_t i = 0; i < insn.detail->groups_count; i++)
    if (insn.detail->groups[i] == group) return true;
  return false;
}

// `push qword [rip + slot]`; the slot's offset is returned for
// place_return_address, which writes it after the jump that follows.
size_t push_return_address(Emitter& e) {
  e.byte(0xff);
  e.byte(0x35);
  const size_t slot = e.out.size();
  for (int i = 0; i < 4; i++) e.byte(0);
  return slot;
}

// The original return address (the first byte after the moved call),
// inline where the push reads it.
void place_return_address(Emitter& e, size_t slot, const cs_insn& call) {
  e.bind(slot, e.here());
  const uint64_t ret = call.address + call.size;
  for (int i = 0; i < 8; i++) e.byte(static_cast<uint8_t>(ret >> (8 * i)));
}

// Emits `bytes` (the instruction's, maybe with its opcode changed) at
// e.here() with every rip-relative displacement moved to keep its target.
Status emit_rip_relocated(const cs_insn& insn, std::vector<uint8_t> bytes, const std::string& what, Emitter& e) {
  const cs_x86& x = insn.detail->x86;
  for (uint8_t i = 0; i < x.op_count; i++) {
    if (x.operands[i].type != X86_OP_MEM || x.operands[i].mem.base != X86_REG_RIP) continue;
    if (x.encoding.disp_offset == 0 || x.encoding.disp_size != 4) return Error::msg("odd rip-relative " + what);
    const uint64_t target = insn.address + insn.size + static_cast<uint64_t>(x.operands[i].mem.disp);
    const int64_t d = static_cast<int64_t>(target - (e.here() + insn.size));
    if (!fits_rel32(d)) return Error::msg("rip-relative operand out of reach: " + what);
    const int32_t v = static_cast<int32_t>(d);
    std::memcpy(&bytes[x.encoding.disp_offset], &v, 4);
  }
  for (uint8_t b : bytes) e.byte(b);
  return ok_status();
}

// An instruction Capstone could not decode at `addr` (bytes at p): a VEX or
// EVEX one (vex_insn.h) is moved to e.here() (when e is given) with its
// rip-relative displacement kept on target, and p, left and addr step over
// it. False for anything else.
bool skip_vex(const uint8_t*& p, size_t& left, uint64_t& addr, Emitter* e, Status& moved) {
  const std::optional<VexInsn> v = decode_vex({p, left});
  if (!v) return false;
  std::vector<uint8_t> bytes(p, p + v->size);
  if (e && v->rip_disp_at) {
    int32_t disp = 0;
    std::memcpy(&disp, &bytes[v->rip_disp_at], 4);
    const uint64_t target = addr + v->size + static_cast<uint64_t>(static_cast<int64_t>(disp));
    const int64_t d = static_cast<int64_t>(target - (e->here() + v->size));
    if (!fits_rel32(d)) {
      moved = Error::msg("rip-relative operand out of reach at " + hex_addr(addr));
      return true;
    }
    const int32_t nd = static_cast<int32_t>(d);
    std::memcpy(&bytes[v->rip_disp_at], &nd, 4);
  }
  if (e)
    for (uint8_t b : bytes) e->byte(b);
  p += v->size;
  left -= v->size;
  addr += v->size;
  return true;
}

// An indirect near call (`call r/m64`, FF /2) that ends the moved bytes:
// push the original return address (the first byte after the patch, kept
// inline), then `jmp r/m64` (FF /4) with the same operand. Not before the
// end (the callee would return into the jump's bytes), nor with %rsp in the
// operand (the push moved it). python3's GC calls its visitor this way in
// list_traverse: a checkpoint there cost a #DB per visit.
Status relocate_indirect_call(const cs_insn& insn, size_t opcode_at, bool last, Emitter& e) {
  const cs_x86& x = insn.detail->x86;
  const std::string what = std::string(insn.mnemonic) + " at " + hex_addr(insn.address);
  if (!last) return Error::msg("cannot move a call before the end of the moved bytes (" + what + ")");
  for (uint8_t i = 0; i < x.op_count; i++) {
    const cs_x86_op& op = x.operands[i];
    if ((op.type == X86_OP_REG && op.reg == X86_REG_RSP) ||
        (op.type == X86_OP_MEM && (op.mem.base == X86_REG_RSP || op.mem.index == X86_REG_RSP)))
      return Error::msg("cannot move a call through %rsp (" + what + ")");
  }
  const size_t slot = push_return_address(e);
  std::vector<uint8_t> bytes(insn.bytes, insn.bytes + insn.size);
  bytes[opcode_at + 1] = static_cast<uint8_t>((bytes[opcode_at + 1] & ~0x38) | (4 << 3));  // ModRM.reg: call -> jmp
  TRY(emit_rip_relocated(insn, std::move(bytes), what, e));
  place_return_address(e, slot, insn);
  return ok_status();
}

// Moves one instruction from its address to e.here(); `last`: it ends the
// moved bytes.
Status relocate(const cs_insn& insn, bool last, Emitter& e) {
  const cs_x86& x = insn.detail->x86;
  const std::string what = std::string(insn.mnemonic) + " at " + hex_addr(insn.address);
  if (insn.size == 5 && insn.bytes[0] == 0xe8) {
    // A direct call ending the displaced bytes (5 bytes long, it always
    // does for the planners' sites; checked for any other caller): push
    // the original return address (kept inline after the jump), then jump
    // to the callee, which returns right after the patch.
    if (!last) return Error::msg("cannot move a call before the end of the moved bytes (" + what + ")");
    const uint64_t callee = static_cast<uint64_t>(x.operands[0].imm);
    const size_t slot = push_return_address(e);
    e.byte(0xe9);
    if (!fits_rel32(static_cast<int64_t>(callee - (e.here() + 4)))) return Error::msg("call out of reach: " + what);
    e.rel32(callee);
    place_return_address(e, slot, insn);
    return ok_status();
  }
  // Relative branches, from their opcode (after legacy/REX prefixes).
  size_t o = 0;
  while (o < insn.size && (insn.bytes[o] == 0x66 || insn.bytes[o] == 0x67 || insn.bytes[o] == 0xf2 ||
                           insn.bytes[o] == 0xf3 || insn.bytes[o] == 0x2e || insn.bytes[o] == 0x3e ||
                           (insn.bytes[o] & 0xf0) == 0x40))
    o++;
  const uint8_t op = o < insn.size ? insn.bytes[o] : 0;
  const uint8_t op2 = o + 1 < insn.size ? insn.bytes[o + 1] : 0;
  if (op == 0xff && ((op2 >> 3) & 7) == 2 && in_group(insn, X86_GRP_CALL)) return relocate_indirect_call(insn, o, last, e);
  if (in_group(insn, X86_GRP_CALL)) return Error::msg("cannot move a call (" + what + ")");
  const bool jcc8 = op >= 0x70 && op <= 0x7f;
  const bool jcc32 = op == 0x0f && op2 >= 0x80 && op2 <= 0x8f;
  const bool jmp = op == 0xeb || op == 0xe9;
  if (op == 0xe8 || op == 0xe0 || op == 0xe1 || op == 0xe2 || op == 0xe3 || (op == 0xc7 && op2 == 0xf8))
    return Error::msg("cannot move " + what + " (no rel32 form)");
  if (jcc8 || jcc32 || jmp) {
    if (x.op_count != 1 || x.operands[0].type != X86_OP_IMM) return Error::msg("unexpected branch " + what);
    const uint64_t target = static_cast<uint64_t>(x.operands[0].imm);
    if (jmp) {
      e.byte(0xe9);
    } else {
      e.byte(0x0f);
      e.byte(static_cast<uint8_t>(0x80 | ((jcc8 ? op : op2) & 0x0f)));
    }
    if (!fits_rel32(static_cast<int64_t>(target - (e.here() + 4)))) return Error::msg("branch out of reach: " + what);
    e.rel32(target);
    return ok_status();
  }
  return emit_rip_relocated(insn, std::vector<uint8_t>(insn.bytes, insn.bytes + insn.size), what, e);
}

}  // namespace

std::string hex_addr(uint64_t v) {
  char b[32];
  std::snprintf(b, sizeof b, "0x%" PRIx64, v);
  return b;
}

void Emitter::rel32(uint64_t target) {
  const int64_t d = static_cast<int64_t>(target - (here() + 4));
  const int32_t v = static_cast<int32_t>(d);
  for (int i = 0; i < 4; i++) out.push_back(static_cast<uint8_t>(static_cast<uint32_t>(v) >> (8 * i)));
}

void Emitter::rip_op(uint8_t op, int reg, uint64_t to) {
  byte(0x48 | (reg >= 8 ? 0x04 : 0));
  byte(op);
  byte(static_cast<uint8_t>(((reg & 7) << 3) | 5));
  rel32(to);
}

size_t Emitter::jne_forward() {
  byte(0x0f);
  byte(0x85);
  const size_t at = out.size();
  for (int i = 0; i < 4; i++) byte(0);
  return at;
}

void Emitter::bind(size_t at, uint64_t target) {
  const int32_t v = static_cast<int32_t>(static_cast<int64_t>(target - (base_ + at + 4)));
  std::memcpy(&out[at], &v, 4);
}

Result<uint64_t> displaced_length(std::span<const uint8_t> code, uint64_t pc) {
  Capstone cs;
  if (!cs.ok) return Error::msg("capstone: cs_open failed");
  const uint8_t* p = code.data();
  size_t left = code.size();
  uint64_t addr = pc, length = 0;
  cs_insn* insn = cs_malloc(cs.h);
  Status unused = ok_status();
  while (length < kJmpLen) {
    const uint64_t before = addr;
    if (!cs_disasm_iter(cs.h, &p, &left, &addr, insn) && !skip_vex(p, left, addr, nullptr, unused)) break;
    length += addr - before;
  }
  cs_free(insn, 1);
  if (length < kJmpLen) return Error::msg("cannot decode the instructions at " + hex_addr(pc));
  return length;
}

Result<uint64_t> emit_displaced(std::span<const uint8_t> code, uint64_t pc, Emitter& e) {
  Capstone cs;
  if (!cs.ok) return Error::msg("capstone: cs_open failed");
  const uint8_t* p = code.data();
  size_t left = code.size();
  uint64_t addr = pc;
  uint64_t displaced = 0;
  cs_insn* insn = cs_malloc(cs.h);
  Status moved = ok_status();
  while (displaced < kJmpLen) {
    if (!cs_disasm_iter(cs.h, &p, &left, &addr, insn)) {
      const uint64_t before = addr;
      if (!skip_vex(p, left, addr, &e, moved)) {
        moved = Error::msg("cannot decode the instruction at " + hex_addr(pc + displaced));
        break;
      }
      if (!moved.ok()) break;
      displaced += addr - before;
      continue;
    }
    const bool ends_flow = insn->id == X86_INS_JMP || in_group(*insn, X86_GRP_RET) || in_group(*insn, X86_GRP_IRET);
    if (ends_flow && displaced + insn->size < kJmpLen) {
      // What follows is reached only by a branch, into the jump we would write.
      moved = Error::msg(std::string("a ") + insn->mnemonic + " within 5 bytes of " + hex_addr(pc));
      break;
    }
    moved = relocate(*insn, displaced + insn->size >= kJmpLen, e);
    if (!moved.ok()) break;
    displaced += insn->size;
  }
  cs_free(insn, 1);
  TRY(std::move(moved));
  e.byte(0xe9);
  e.rel32(pc + displaced);
  return displaced;
}

namespace {

// Emits the instructions of code (read at `at`) in [from, to), moved;
// `end`: where the moved bytes end (a call may only end them).
Status emit_range(std::span<const uint8_t> code, uint64_t at, uint64_t from, uint64_t to, uint64_t end, Emitter& e) {
  Capstone cs;
  if (!cs.ok) return Error::msg("capstone: cs_open failed");
  const uint8_t* p = code.data();
  size_t left = code.size();
  uint64_t addr = at;
  cs_insn* insn = cs_malloc(cs.h);
  Status moved = ok_status();
  while (addr < to) {
    const uint64_t start = addr;
    if (!cs_disasm_iter(cs.h, &p, &left, &addr, insn)) {
      if (!skip_vex(p, left, addr, start < from ? nullptr : &e, moved)) {
        moved = Error::msg("cannot decode the instruction at " + hex_addr(start));
        break;
      }
      if (!moved.ok()) break;
      continue;
    }
    if (start < from) continue;
    moved = relocate(*insn, addr == end, e);
    if (!moved.ok()) break;
  }
  cs_free(insn, 1);
  TRY(std::move(moved));
  if (addr != to) return Error::msg("no instruction boundary at " + hex_addr(to));
  return ok_status();
}

}  // namespace

Status emit_before_pc(std::span<const uint8_t> code, const PatchSite& site, Emitter& e) {
  return emit_range(code, site.anchor, site.anchor, site.pc, site.end(), e);
}

Status emit_from_pc(std::span<const uint8_t> code, const PatchSite& site, Emitter& e) {
  TRY(emit_range(code, site.anchor, site.pc, site.end(), site.end(), e));
  e.byte(0xe9);
  e.rel32(site.end());
  return ok_status();
}

Result<uint64_t> moved_offset(std::span<const uint8_t> code, const PatchSite& site, uint64_t rip) {
  if (rip < site.anchor || rip >= site.end()) return Error::msg(hex_addr(rip) + " is not in the moved bytes");
  // Moved sizes differ from the originals (re-encoded branches): emit the
  // part up to rip at a nominal base and measure.
  const uint64_t from = rip < site.pc ? site.anchor : site.pc;
  Emitter e(site.end() + kTrampPage);
  TRY(emit_range(code, site.anchor, from, rip, site.end(), e));
  return static_cast<uint64_t>(e.out.size());
}

std::optional<uint64_t> moved_instruction_at(std::span<const uint8_t> code, const PatchSite& site, bool before,
                                             uint64_t base, uint64_t rip) {
  // Sizes change in the move (re-encoded branches): each start's offset.
  for (uint64_t a = before ? site.anchor : site.pc; a < (before ? site.pc : site.end()); a++) {
    Result<uint64_t> off = moved_offset(code, site, a);
    if (off.ok() && base + *off == rip) return a;
  }
  return std::nullopt;
}

Result<uint64_t> free_page_near(pid_t pid, uint64_t pc, PagePlace place) {
  std::ifstream maps("/proc/" + std::to_string(pid) + "/maps");
  if (!maps) return Error::msg("cannot read /proc/" + std::to_string(pid) + "/maps");
  std::vector<std::pair<uint64_t, uint64_t>> used;
  std::string line;
  while (std::getline(maps, line)) {
    unsigned long lo = 0, hi = 0;
    if (std::sscanf(line.c_str(), "%lx-%lx", &lo, &hi) == 2) used.emplace_back(lo, hi);
  }
  // Where the program maps at another moment of its recording, too (program_ranges.h).
  for (const auto& r : current_program_ranges()) used.push_back(r);
  std::sort(used.begin(), used.end());
  constexpr uint64_t kReach = 1ull << 30;  // leaves room for the displaced code's own targets
  constexpr uint64_t kGuard = 1ull << 20;  // not right against a mapping that may grow
  // Quiet: half a GiB below pc inside a free gap. The heap grows up from
  // above the program and mmap fills down from below the libraries; neither
  // reaches that far in a segment unless the program maps hundreds of MiB.
  constexpr uint64_t kQuiet = 1ull << 29;
  used.emplace_back(0x7ffffffff000ull, 0x7ffffffff000ull);
  if (place == PagePlace::Quiet && pc > kQuiet + 0x10000) {
    const uint64_t c = (pc - kQuiet) & ~(kTrampPage - 1);
    bool free = true;
    for (const auto& [lo, hi] : used)
      if (lo < c + kTrampPage + kGuard && c < hi + kGuard) free = false;
    if (free) return c;
  }
  uint64_t best = 0, best_dist = UINT64_MAX;
  uint64_t prev_end = 0x10000;
  for (const auto& [lo, hi] : used) {
    if (lo > prev_end + 2 * kGuard + kTrampPage) {
      // Candidates: the gap's two ends, a guard away from their neighbours.
      for (uint64_t c : {prev_end + kGuard, lo - kGuard - kTrampPage}) {
        const uint64_t dist = c > pc ? c - pc : pc - c;
        if (dist < kReach && dist < best_dist) {
          best = c;
          best_dist = dist;
        }
      }
    }
    prev_end = std::max(prev_end, hi);
  }
  if (!best) return Error::msg("no free page within 1 GiB of " + hex_addr(pc));
  return best;
}

SiteJump site_jump(const PatchSite& site, uint64_t displaced, uint64_t page) {
  const uint64_t jump_at = site.relay ? site.relay : site.anchor;
  std::vector<uint8_t> far(kJmpLen);
  far[0] = 0xe9;
  const int32_t rel = static_cast<int32_t>(static_cast<int64_t>(page - (jump_at + kJmpLen)));
  std::memcpy(&far[1], &rel, 4);
  SiteJump j;
  j.at_anchor.assign(displaced, 0xcc);
  if (site.relay) {
    j.at_anchor[0] = 0xeb;
    j.at_anchor[1] = static_cast<uint8_t>(
        static_cast<int8_t>(static_cast<int64_t>(site.relay) - static_cast<int64_t>(site.anchor + 2)));  // after the 2-byte short jump
    j.at_relay = std::move(far);
  } else {
    std::copy(far.begin(), far.end(), j.at_anchor.begin());
  }
  return j;
}

}  // namespace slsdbg::replay
