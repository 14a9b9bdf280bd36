#include "engine/replay/patched_breakpoint.h"

#include <capstone/capstone.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>

#include "recorder/process/inject.h"

namespace slsdbg::replay {

namespace {

constexpr uint64_t kPage = 4096;
constexpr uint64_t kJmpLen = 5;
// Page layout: code from 0, data from kData, the private stack below the end.
constexpr uint64_t kData = 2048;
constexpr uint64_t kSavedRsp = kData;
constexpr uint64_t kValues = kData + 8;  // 16 registers, by x86 register number
constexpr uint64_t kStackTop = kPage;

bool fits_rel32(int64_t d) { return d >= INT32_MIN && d <= INT32_MAX; }

class Emitter {
 public:
  explicit Emitter(uint64_t base) : base_(base) {}
  uint64_t here() const { return base_ + out.size(); }
  void byte(uint8_t b) { out.push_back(b); }
  void rel32(uint64_t target) {  // the instruction ends after these 4 bytes
    const int64_t d = static_cast<int64_t>(target - (here() + 4));
    const int32_t v = static_cast<int32_t>(d);
    for (int i = 0; i < 4; i++) out.push_back(static_cast<uint8_t>(static_cast<uint32_t>(v) >> (8 * i)));
  }
  // REX.W op reg, [rip + to]
  void rip_op(uint8_t op, int reg, uint64_t to) {
    byte(0x48 | (reg >= 8 ? 0x04 : 0));
    byte(op);
    byte(static_cast<uint8_t>(((reg & 7) << 3) | 5));
    rel32(to);
  }
  // jne to a label not known yet: returns the rel32's offset.
  size_t jne_forward() {
    byte(0x0f);
    byte(0x85);
    const size_t at = out.size();
    for (int i = 0; i < 4; i++) byte(0);
    return at;
  }
  void bind(size_t at, uint64_t target) {
    const int32_t v = static_cast<int32_t>(static_cast<int64_t>(target - (base_ + at + 4)));
    std::memcpy(&out[at], &v, 4);
  }
  std::vector<uint8_t> out;

 private:
  uint64_t base_;
};

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

std::string hex(uint64_t v) {
  char b[32];
  std::snprintf(b, sizeof b, "0x%" PRIx64, v);
  return b;
}

// Moves one instruction from its address to e.here().
Status relocate(const cs_insn& insn, Emitter& e) {
  const cs_x86& x = insn.detail->x86;
  const std::string what = std::string(insn.mnemonic) + " at " + hex(insn.address);
  if (in_group(insn, X86_GRP_CALL)) return Error::msg("cannot move a call (" + what + ")");
  // Relative branches, from their opcode (after legacy/REX prefixes).
  size_t o = 0;
  while (o < insn.size && (insn.bytes[o] == 0x66 || insn.bytes[o] == 0x67 || insn.bytes[o] == 0xf2 ||
                           insn.bytes[o] == 0xf3 || insn.bytes[o] == 0x2e || insn.bytes[o] == 0x3e ||
                           (insn.bytes[o] & 0xf0) == 0x40))
    o++;
  const uint8_t op = o < insn.size ? insn.bytes[o] : 0;
  const uint8_t op2 = o + 1 < insn.size ? insn.bytes[o + 1] : 0;
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
  std::vector<uint8_t> bytes(insn.bytes, insn.bytes + insn.size);
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

// x86 register numbers of user_regs_struct's general registers.
struct Reg {
  int number;
  unsigned long long user_regs_struct::*field;
};
// Most likely to differ between two visits first: a mismatch stops early.
constexpr Reg kRegs[] = {
    {0, &user_regs_struct::rax}, {2, &user_regs_struct::rdx},  {1, &user_regs_struct::rcx},
    {6, &user_regs_struct::rsi}, {7, &user_regs_struct::rdi},  {8, &user_regs_struct::r8},
    {9, &user_regs_struct::r9},  {10, &user_regs_struct::r10}, {11, &user_regs_struct::r11},
    {3, &user_regs_struct::rbx}, {5, &user_regs_struct::rbp},  {12, &user_regs_struct::r12},
    {13, &user_regs_struct::r13}, {14, &user_regs_struct::r14}, {15, &user_regs_struct::r15},
};

// A free page within reach of rel32 from pc, from the tracee's maps.
Result<uint64_t> free_page_near(pid_t pid, uint64_t pc) {
  std::ifstream maps("/proc/" + std::to_string(pid) + "/maps");
  if (!maps) return Error::msg("cannot read /proc/" + std::to_string(pid) + "/maps");
  std::vector<std::pair<uint64_t, uint64_t>> used;
  std::string line;
  while (std::getline(maps, line)) {
    unsigned long lo = 0, hi = 0;
    if (std::sscanf(line.c_str(), "%lx-%lx", &lo, &hi) == 2) used.emplace_back(lo, hi);
  }
  constexpr uint64_t kReach = 1ull << 30;  // leaves room for the displaced code's own targets
  constexpr uint64_t kGuard = 1ull << 20;  // not right against a mapping that may grow
  uint64_t best = 0, best_dist = UINT64_MAX;
  uint64_t prev_end = 0x10000;
  used.emplace_back(0x7ffffffff000ull, 0x7ffffffff000ull);
  for (const auto& [lo, hi] : used) {
    if (lo > prev_end + 2 * kGuard + kPage) {
      // Candidates: the gap's two ends, a guard away from their neighbours.
      for (uint64_t c : {prev_end + kGuard, lo - kGuard - kPage}) {
        const uint64_t dist = c > pc ? c - pc : pc - c;
        if (dist < kReach && dist < best_dist) {
          best = c;
          best_dist = dist;
        }
      }
    }
    prev_end = std::max(prev_end, hi);
  }
  if (!best) return Error::msg("no free page within 1 GiB of " + hex(pc));
  return best;
}

}  // namespace

Result<uint64_t> patch_length(std::span<const uint8_t> code, uint64_t pc) {
  Capstone cs;
  if (!cs.ok) return Error::msg("capstone: cs_open failed");
  const uint8_t* p = code.data();
  size_t left = code.size();
  uint64_t addr = pc, length = 0;
  cs_insn* insn = cs_malloc(cs.h);
  while (length < kJmpLen && cs_disasm_iter(cs.h, &p, &left, &addr, insn)) length += insn->size;
  cs_free(insn, 1);
  if (length < kJmpLen) return Error::msg("cannot decode the instructions at " + hex(pc));
  return length;
}

Result<Trampoline> build_trampoline(std::span<const uint8_t> code, const user_regs_struct& target,
                                    PatchCompare compare, uint64_t tramp) {
  Capstone cs;
  if (!cs.ok) return Error::msg("capstone: cs_open failed");
  Emitter e(tramp);
  e.rip_op(0x89, 4, tramp + kSavedRsp);  // mov [saved_rsp], rsp
  e.rip_op(0x8d, 4, tramp + kStackTop);  // lea rsp, [stack_top]
  e.byte(0x9c);                          // pushfq
  std::vector<size_t> to_fail;
  for (const Reg& r : kRegs) {
    if (compare == PatchCompare::AllButRcxR11 && (r.number == 1 || r.number == 11)) continue;
    e.rip_op(0x3b, r.number, tramp + kValues + 8 * r.number);  // cmp reg, [value]
    to_fail.push_back(e.jne_forward());
  }
  e.byte(0x50);                               // push rax
  e.rip_op(0x8b, 0, tramp + kSavedRsp);       // mov rax, [saved_rsp]
  e.rip_op(0x3b, 0, tramp + kValues + 8 * 4);  // cmp rax, [value of rsp]
  e.byte(0x58);                               // pop rax (flags kept)
  to_fail.push_back(e.jne_forward());
  e.byte(0x9d);                          // popfq
  e.rip_op(0x8b, 4, tramp + kSavedRsp);  // mov rsp, [saved_rsp]
  e.byte(0xcc);                          // int3: a match
  Trampoline t;
  t.resume = e.here();
  e.byte(0xe9);
  const size_t to_displaced = e.out.size();
  for (int i = 0; i < 4; i++) e.byte(0);
  const uint64_t fail = e.here();
  for (size_t at : to_fail) e.bind(at, fail);
  e.byte(0x9d);
  e.rip_op(0x8b, 4, tramp + kSavedRsp);
  e.bind(to_displaced, e.here());

  const uint8_t* p = code.data();
  size_t left = code.size();
  uint64_t addr = target.rip;
  cs_insn* insn = cs_malloc(cs.h);
  Status moved = ok_status();
  while (t.displaced < kJmpLen) {
    if (!cs_disasm_iter(cs.h, &p, &left, &addr, insn)) {
      moved = Error::msg("cannot decode the instruction at " + hex(target.rip + t.displaced));
      break;
    }
    const bool ends_flow = insn->id == X86_INS_JMP || in_group(*insn, X86_GRP_RET) || in_group(*insn, X86_GRP_IRET);
    if (ends_flow && t.displaced + insn->size < kJmpLen) {
      // What follows is reached only by a branch, into the jump we would write.
      moved = Error::msg(std::string("a ") + insn->mnemonic + " within 5 bytes of " + hex(target.rip));
      break;
    }
    moved = relocate(*insn, e);
    if (!moved.ok()) break;
    t.displaced += insn->size;
  }
  cs_free(insn, 1);
  TRY(std::move(moved));
  e.byte(0xe9);
  e.rel32(target.rip + t.displaced);
  if (e.out.size() > kData) return Error::msg("trampoline too long");
  e.out.resize(kPage - 64, 0xcc);  // the data area; the stack's 16 bytes lie past it
  uint64_t values[16] = {};
  for (const Reg& r : kRegs) values[r.number] = target.*(r.field);
  values[4] = target.rsp;
  std::memcpy(&e.out[kValues], values, sizeof values);
  t.bytes = std::move(e.out);
  return t;
}

Result<PatchedBreakpoint> PatchedBreakpoint::install(process::Task& task, const user_regs_struct& target,
                                                     PatchCompare compare) {
  std::vector<uint8_t> code(32);
  TRY_CTX(task.read_memory(RemoteAddr(target.rip), code), "reading the code at the checkpoint's pc");
  const uint64_t page = TRY(free_page_near(task.tgid(), target.rip));
  Trampoline t = TRY(build_trampoline(code, target, compare, page));
  const user_regs_struct now = TRY(task.regs());
  if (now.rip > target.rip && now.rip < target.rip + t.displaced)
    return Error::msg("the tracee stands inside the bytes the jump would replace");
  const int64_t mapped = TRY(process::inject_syscall(
      task, SYS_mmap,
      {page, kPage, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE,
       static_cast<uint64_t>(-1), 0}));
  if (mapped < 0 || static_cast<uint64_t>(mapped) != page)
    return Error::msg("mmap of the trampoline at " + hex(page) + " failed (" + std::to_string(mapped) + ")");
  PatchedBreakpoint b;
  b.pc_ = target.rip;
  b.page_ = page;
  b.resume_ = t.resume;
  b.original_.assign(code.begin(), code.begin() + static_cast<long>(t.displaced));
  Status written = task.write_memory(RemoteAddr(page), t.bytes);
  std::vector<uint8_t> jump(t.displaced, 0xcc);  // int3 after the jump: a branch there stops
  jump[0] = 0xe9;
  const int32_t rel = static_cast<int32_t>(static_cast<int64_t>(page - (target.rip + kJmpLen)));
  std::memcpy(&jump[1], &rel, 4);
  if (written.ok()) written = task.write_memory(RemoteAddr(target.rip), jump);
  if (!written.ok()) {
    (void)process::inject_syscall(task, SYS_munmap, {page, kPage, 0, 0, 0, 0});
    return written.take_error();
  }
  return b;
}

Status PatchedBreakpoint::remove(process::Task& task) {
  TRY_CTX(task.write_memory(RemoteAddr(pc_), original_), "putting back the code at " + hex(pc_));
  const int64_t r = TRY(process::inject_syscall(task, SYS_munmap, {page_, kPage, 0, 0, 0, 0}));
  if (r != 0) return Error::msg("munmap of the trampoline failed (" + std::to_string(r) + ")");
  return ok_status();
}

void PatchedBreakpoint::hide(uint64_t addr, std::span<uint8_t> bytes) const {
  for (size_t i = 0; i < original_.size(); i++) {
    const uint64_t a = pc_ + i;
    if (a >= addr && a < addr + bytes.size()) bytes[a - addr] = original_[i];
  }
}

}  // namespace slsdbg::replay
