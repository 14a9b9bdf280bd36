#include "engine/replay/patched_breakpoint.h"

#include <sys/mman.h>
#include <sys/syscall.h>

#include <algorithm>
#include <cstring>
#include <string>

#include "engine/replay/trampoline_code.h"
#include "process/inject.h"

namespace slsdbg::replay {

namespace {

constexpr uint64_t kPage = kTrampPage;
// Page layout: code from 0, data from kData, the private stack below the end.
constexpr uint64_t kData = 2048;
constexpr uint64_t kSavedRsp = kData;
constexpr uint64_t kValues = kData + 8;  // 16 registers, by x86 register number
constexpr uint64_t kMemValues = kValues + 8 * 16;  // MemCheck values
constexpr uint64_t kQuickNeg = kMemValues + 8 * kMaxMemChecks;  // minus the quick registers' values
constexpr uint64_t kScratch = kQuickNeg + 8 * kQuickRegs;        // rcx while the quick test runs
constexpr uint64_t kStackTop = kPage;

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

// The registers of the flag-free quick test: the first of kRegs that the
// comparison includes, rcx (its scratch register) aside.
std::vector<Reg> quick_regs(PatchCompare compare) {
  std::vector<Reg> out;
  for (const Reg& r : kRegs) {
    if (r.number == 1 || (compare == PatchCompare::AllButRcxR11 && r.number == 11)) continue;
    if (out.size() < kQuickRegs) out.push_back(r);
  }
  return out;
}

// lea rcx, [reg + rcx]: rcx = reg - value when rcx held -value; no flags.
void lea_rcx_reg_plus_rcx(Emitter& e, int reg) {
  e.byte(0x48 | (reg >= 8 ? 0x01 : 0));  // REX.W (+B)
  e.byte(0x8d);
  e.byte(0x4c);                                       // mod 01, reg rcx, SIB
  e.byte(static_cast<uint8_t>((1 << 3) | (reg & 7)));  // index rcx, base reg
  e.byte(0x00);                                       // disp8 0 (rbp/r13 as base need one)
}

}  // namespace

Result<uint64_t> patch_length(std::span<const uint8_t> code, uint64_t pc) {
  return displaced_length(code, pc);
}

Result<Trampoline> build_trampoline(std::span<const uint8_t> code, const user_regs_struct& target,
                                    PatchCompare compare, uint64_t tramp, std::span<const MemCheck> memory) {
  Emitter scratch(tramp);  // checks that the code at pc can move, and how much of it
  const uint64_t length = TRY(emit_displaced(code, target.rip, scratch));
  return build_trampoline(code, PatchSite::at(target.rip, length), target, compare, tramp, memory);
}

Result<Trampoline> build_trampoline(std::span<const uint8_t> code, const PatchSite& site,
                                    const user_regs_struct& target, PatchCompare compare, uint64_t tramp,
                                    std::span<const MemCheck> memory) {
  if (memory.size() > kMaxMemChecks) return Error::msg("internal: too many memory checks for the trampoline");
  Emitter e(tramp);
  TRY(emit_before_pc(code, site, e));
  Trampoline t;
  t.check = e.here();
  // Quick test first, without touching the flags: most visits differ in
  // rax or rdx, and pushfq/popfq cost about 5 times a tight loop's body.
  // Per register: rcx = reg - value (mov, lea), jrcxz to the next test.
  const std::vector<Reg> quick = quick_regs(compare);
  std::vector<size_t> to_quick_fail;
  e.rip_op(0x89, 1, tramp + kScratch);  // mov [scratch], rcx
  for (size_t i = 0; i < quick.size(); i++) {
    e.rip_op(0x8b, 1, tramp + kQuickNeg + 8 * i);  // mov rcx, [-value]
    lea_rcx_reg_plus_rcx(e, quick[i].number);
    e.byte(0xe3);  // jrcxz over the jmp: this register equals its target
    e.byte(0x05);
    e.byte(0xe9);  // jmp quick_fail
    to_quick_fail.push_back(e.out.size());
    for (int b = 0; b < 4; b++) e.byte(0);
  }
  e.rip_op(0x8b, 1, tramp + kScratch);   // mov rcx, [scratch]
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
  for (size_t i = 0; i < memory.size(); i++) {
    e.byte(0x50);  // push rax
    e.byte(0x48);  // movabs rax, [addr]
    e.byte(0xa1);
    for (int b = 0; b < 8; b++) e.byte(static_cast<uint8_t>(memory[i].addr >> (8 * b)));
    e.rip_op(0x3b, 0, tramp + kMemValues + 8 * i);  // cmp rax, [value]
    e.byte(0x58);                                   // pop rax (flags kept)
    to_fail.push_back(e.jne_forward());
  }
  e.byte(0x9d);                          // popfq
  e.rip_op(0x8b, 4, tramp + kSavedRsp);  // mov rsp, [saved_rsp]
  e.byte(0xcc);                          // int3: a match
  t.resume = e.here();
  e.byte(0xe9);
  const size_t to_displaced = e.out.size();
  for (int i = 0; i < 4; i++) e.byte(0);
  for (size_t at : to_quick_fail) e.bind(at, e.here());
  e.rip_op(0x8b, 1, tramp + kScratch);  // quick_fail: mov rcx, [scratch]
  e.byte(0xe9);                         // jmp displaced
  const size_t quick_to_displaced = e.out.size();
  for (int i = 0; i < 4; i++) e.byte(0);
  const uint64_t fail = e.here();
  for (size_t at : to_fail) e.bind(at, fail);
  e.byte(0x9d);
  e.rip_op(0x8b, 4, tramp + kSavedRsp);
  e.bind(to_displaced, e.here());
  e.bind(quick_to_displaced, e.here());

  t.from_pc = e.here();
  TRY(emit_from_pc(code, site, e));
  t.back = e.here() - kJmpLen;
  t.displaced = site.length;
  if (e.out.size() > kData) return Error::msg("trampoline too long");
  e.out.resize(kPage - 64, 0xcc);  // the data area; the stack's 16 bytes lie past it
  uint64_t values[16] = {};
  for (const Reg& r : kRegs) values[r.number] = target.*(r.field);
  values[4] = target.rsp;
  std::memcpy(&e.out[kValues], values, sizeof values);
  for (size_t i = 0; i < memory.size(); i++) std::memcpy(&e.out[kMemValues + 8 * i], &memory[i].value, 8);
  for (size_t i = 0; i < quick.size(); i++) {
    const uint64_t neg = 0 - static_cast<uint64_t>(target.*(quick[i].field));
    std::memcpy(&e.out[kQuickNeg + 8 * i], &neg, 8);
  }
  static_assert(kScratch + 8 <= kPage - 64, "the data area overlaps the private stack");
  t.bytes = std::move(e.out);
  return t;
}

Result<PatchedBreakpoint> PatchedBreakpoint::install(process::Task& task, const PatchSite& site,
                                                     const user_regs_struct& target, PatchCompare compare,
                                                     std::span<const MemCheck> memory) {
  if (site.pc != target.rip) return Error::msg("internal: the patch site is not at the checkpoint's pc");
  std::vector<uint8_t> code(std::max<uint64_t>(32, site.length));
  TRY_CTX(task.read_memory(RemoteAddr(site.anchor), code), "reading the code at the checkpoint's pc");
  const uint64_t page = TRY(free_page_near(task.tgid(), site.relay ? site.relay : site.anchor));
  std::vector<uint8_t> relay_code(site.relay ? kJmpLen : 0);
  if (site.relay) TRY_CTX(task.read_memory(RemoteAddr(site.relay), relay_code), "reading the padding of the relay");
  Trampoline t = TRY(build_trampoline(code, site, target, compare, page, memory));
  user_regs_struct now = TRY(task.regs());
  const bool at_anchored_pc = site.anchored() && now.rip == site.pc;
  if (now.rip > site.anchor && now.rip < site.end() && !at_anchored_pc)
    return Error::msg("the tracee stands inside the bytes the jump would replace");
  const int64_t mapped = TRY(process::inject_syscall(
      task, SYS_mmap,
      {page, kPage, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE,
       static_cast<uint64_t>(-1), 0}));
  if (mapped < 0 || static_cast<uint64_t>(mapped) != page)
    return Error::msg("mmap of the trampoline at " + hex_addr(page) + " failed (" + std::to_string(mapped) + ")");
  PatchedBreakpoint b;
  b.pc_ = target.rip;
  b.anchor_ = site.anchor;
  b.page_ = page;
  b.resume_ = t.resume;
  b.site_ = site;
  b.layout_ = t;
  b.layout_.bytes.clear();
  b.original_.assign(code.begin(), code.begin() + static_cast<long>(t.displaced));
  b.relay_ = site.relay;
  b.relay_original_ = relay_code;
  Status written = task.write_memory(RemoteAddr(page), t.bytes);
  const SiteJump jump = site_jump(site, t.displaced, page);
  // Relayed: the far jump in the padding first, then the short jump to it.
  if (site.relay && written.ok()) written = task.write_memory(RemoteAddr(site.relay), jump.at_relay);
  if (written.ok()) written = task.write_memory(RemoteAddr(site.anchor), jump.at_anchor);
  if (written.ok() && at_anchored_pc) {
    now.rip = t.check;  // pc's bytes are gone: go on from the trampoline's comparison
    written = task.set_regs(now);
    if (!written.ok()) (void)task.write_memory(RemoteAddr(site.anchor), b.original_);
  }
  if (!written.ok()) {
    if (site.relay) (void)task.write_memory(RemoteAddr(site.relay), relay_code);
    (void)process::inject_syscall(task, SYS_munmap, {page, kPage, 0, 0, 0, 0});
    return written.take_error();
  }
  return b;
}

Status PatchedBreakpoint::remove(process::Task& task) {
  TRY_CTX(task.write_memory(RemoteAddr(anchor_), original_), "putting back the code at " + hex_addr(anchor_));
  if (relay_)
    TRY_CTX(task.write_memory(RemoteAddr(relay_), relay_original_), "putting back the padding at " + hex_addr(relay_));
  const int64_t r = TRY(process::inject_syscall(task, SYS_munmap, {page_, kPage, 0, 0, 0, 0}));
  if (r != 0) return Error::msg("munmap of the trampoline failed (" + std::to_string(r) + ")");
  return ok_status();
}

std::optional<uint64_t> trampoline_program_pc(const Trampoline& t, std::span<const uint8_t> code,
                                              const PatchSite& site, uint64_t tramp, uint64_t rip) {
  if (rip == t.back) return site.end();
  if (rip == t.check) return site.pc;
  const bool before = rip >= tramp && rip < t.check;
  if (!before && !(rip >= t.from_pc && rip < t.back)) return std::nullopt;
  return moved_instruction_at(code, site, before, before ? tramp : t.from_pc, rip);
}

std::optional<uint64_t> PatchedBreakpoint::program_pc(uint64_t rip) const {
  return trampoline_program_pc(layout_, original_, site_, page_, rip);
}

void PatchedBreakpoint::hide(uint64_t addr, std::span<uint8_t> bytes) const {
  for (size_t i = 0; i < original_.size(); i++) {
    const uint64_t a = anchor_ + i;
    if (a >= addr && a < addr + bytes.size()) bytes[a - addr] = original_[i];
  }
  for (size_t i = 0; i < relay_original_.size(); i++) {
    const uint64_t a = relay_ + i;
    if (a >= addr && a < addr + bytes.size()) bytes[a - addr] = relay_original_[i];
  }
}

}  // namespace slsdbg::replay
