#include "engine/replay/debug_registers.h"

#include <cerrno>
#include <cstdio>

#include "process/debug_regs.h"

namespace slsdbg::replay {

namespace {

constexpr unsigned long kDr6Traps = 0xful | 0x4000ul;  // B0-B3, BS

Result<unsigned long> peek(pid_t tid, int i) { return process::read_debug_register(tid, i); }
Status poke(pid_t tid, int i, unsigned long v) { return process::write_debug_register(tid, i, v); }

// DR7's RW and LEN fields of one slot.
unsigned long rw_bits(DrKind kind) { return kind == DrKind::Execute ? 0ul : kind == DrKind::Write ? 1ul : 3ul; }
unsigned long len_bits(uint64_t len) {
  switch (len) {
    case 2: return 1;
    case 8: return 2;
    case 4: return 3;
    default: return 0;  // 1 (and every execute breakpoint)
  }
}

std::string hex(uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

}  // namespace

const char* DebugRegisters::name(DrUse use) {
  switch (use) {
    case DrUse::Free: return "free";
    case DrUse::Watch: return "watchpoint";
    case DrUse::CountProbe: return "counting probe";
    case DrUse::TargetProbe: return "target probe";
    case DrUse::CheckpointBreakpoint: return "checkpoint breakpoint";
    case DrUse::RepStringWatch: return "rep string watch";
    case DrUse::ThreadTarget: return "thread's checkpoint breakpoint";
  }
  return "?";
}

std::string DebugRegisters::describe() const {
  std::string out;
  for (int i = 0; i < kSlots; i++) {
    const DrSlot& s = slots_[static_cast<size_t>(i)];
    if (!out.empty()) out += ", ";
    out += "DR" + std::to_string(i) + ": " + name(s.use);
    if (s.use == DrUse::Free) continue;
    out += " " + hex(s.addr);
    if (s.kind != DrKind::Execute)
      out += " (" + std::to_string(s.len) + " bytes, " + (s.kind == DrKind::Write ? "write" : "access") + ")";
  }
  return out;
}

Result<int> DebugRegisters::claim(DrUse use, uint64_t addr, DrKind kind, uint64_t len) {
  for (int i = 0; i < kSlots; i++) {
    DrSlot& s = slots_[static_cast<size_t>(i)];
    if (s.use != DrUse::Free) continue;
    s = DrSlot{use, addr, kind, kind == DrKind::Execute ? 1 : len, true};
    return i;
  }
  return Error::msg(std::string("no free debug register for a ") + name(use) + " at " + hex(addr) + " (" + describe() + ")");
}

void DebugRegisters::release(int slot) {
  if (slot >= 0 && slot < kSlots) slots_[static_cast<size_t>(slot)] = DrSlot{};
}

Result<DebugRegisters::Borrowed> DebugRegisters::borrow(DrUse use, uint64_t addr, DrKind kind, uint64_t len) {
  int pick = -1;
  for (int i = 0; i < kSlots && pick < 0; i++)
    if (slots_[static_cast<size_t>(i)].use == DrUse::Free) pick = i;
  for (int i = 0; i < kSlots && pick < 0; i++) {
    const DrUse u = slots_[static_cast<size_t>(i)].use;
    if (u != DrUse::CheckpointBreakpoint && u != DrUse::RepStringWatch) pick = i;
  }
  if (pick >= 0) {
    DrSlot& s = slots_[static_cast<size_t>(pick)];
    Borrowed b{pick, s};
    s = DrSlot{use, addr, kind, kind == DrKind::Execute ? 1 : len, true};
    return b;
  }
  return Error::msg(std::string("no debug register to lend to a ") + name(use) + " (" + describe() + ")");
}

void DebugRegisters::give_back(const Borrowed& b) {
  if (b.slot >= 0 && b.slot < kSlots) slots_[static_cast<size_t>(b.slot)] = b.saved;
}

void DebugRegisters::release_all(DrUse use) {
  for (DrSlot& s : slots_)
    if (s.use == use) s = DrSlot{};
}

int DebugRegisters::find(DrUse use, uint64_t addr) const {
  for (int i = 0; i < kSlots; i++)
    if (slots_[static_cast<size_t>(i)].use == use && slots_[static_cast<size_t>(i)].addr == addr) return i;
  return -1;
}

int DebugRegisters::free_slots() const {
  int n = 0;
  for (const DrSlot& s : slots_) n += s.use == DrUse::Free;
  return n;
}

bool DebugRegisters::holds(DrUse use) const {
  for (const DrSlot& s : slots_)
    if (s.use == use) return true;
  return false;
}

bool DebugRegisters::holds(DrUse use, DrKind kind) const {
  for (const DrSlot& s : slots_)
    if (s.use == use && s.kind == kind) return true;
  return false;
}

unsigned long DebugRegisters::dr7() const {
  unsigned long v = 0;
  for (int i = 0; i < kSlots; i++) {
    const DrSlot& s = slots_[static_cast<size_t>(i)];
    if (s.use == DrUse::Free || !s.enabled) continue;
    v |= 1ul << (2 * i);  // Ln
    v |= (rw_bits(s.kind) | (len_bits(s.len) << 2)) << (16 + 4 * i);
  }
  return v;
}

Status DebugRegisters::apply(pid_t tid) {
  // DR7 off first: the kernel checks each address against the slots that
  // are enabled, with their old kind and length.
  TRY(poke(tid, 7, 0));
  for (int i = 0; i < kSlots; i++) {
    const DrSlot& s = slots_[static_cast<size_t>(i)];
    if (s.use != DrUse::Free) TRY(poke(tid, i, s.addr));
  }
  Status st = poke(tid, 7, dr7());
  if (!st.ok() && st.error().errno_value == ENOSPC)
    return Error::msg("no free debug register: the kernel's perf breakpoints (the checkpoint's conditional breakpoint) hold the rest (" +
                      describe() + ")");
  return st;
}

Result<unsigned long> DebugRegisters::read_dr6(pid_t tid) { return peek(tid, 6); }
Status DebugRegisters::clear_dr6(pid_t tid) { return poke(tid, 6, 0); }

Result<unsigned long> DebugRegisters::take_dr6(pid_t tid) {
  const unsigned long dr6 = TRY(peek(tid, 6));
  if (dr6 & kDr6Traps) TRY(poke(tid, 6, 0));
  return dr6;
}

}  // namespace slsdbg::replay
