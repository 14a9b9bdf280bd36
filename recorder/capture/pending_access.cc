#include "recorder/capture/pending_access.h"

#include <capstone/capstone.h>

#include <optional>

namespace slsdbg::recorder {

namespace {

// A general register's value, zero-extended for the 32-bit names an address
// size override uses.
std::optional<uint64_t> reg_value(x86_reg r, const user_regs_struct& g) {
  switch (r) {
    case X86_REG_RAX: return g.rax;
    case X86_REG_RBX: return g.rbx;
    case X86_REG_RCX: return g.rcx;
    case X86_REG_RDX: return g.rdx;
    case X86_REG_RSI: return g.rsi;
    case X86_REG_RDI: return g.rdi;
    case X86_REG_RBP: return g.rbp;
    case X86_REG_RSP: return g.rsp;
    case X86_REG_R8: return g.r8;
    case X86_REG_R9: return g.r9;
    case X86_REG_R10: return g.r10;
    case X86_REG_R11: return g.r11;
    case X86_REG_R12: return g.r12;
    case X86_REG_R13: return g.r13;
    case X86_REG_R14: return g.r14;
    case X86_REG_R15: return g.r15;
    case X86_REG_EAX: return g.rax & 0xffffffffu;
    case X86_REG_EBX: return g.rbx & 0xffffffffu;
    case X86_REG_ECX: return g.rcx & 0xffffffffu;
    case X86_REG_EDX: return g.rdx & 0xffffffffu;
    case X86_REG_ESI: return g.rsi & 0xffffffffu;
    case X86_REG_EDI: return g.rdi & 0xffffffffu;
    case X86_REG_EBP: return g.rbp & 0xffffffffu;
    case X86_REG_ESP: return g.rsp & 0xffffffffu;
    default: return std::nullopt;
  }
}

}  // namespace

struct PendingAccessDecoder::Impl {
  csh handle = 0;
  bool ok = false;
};

PendingAccessDecoder::PendingAccessDecoder() : impl_(std::make_unique<Impl>()) {
  if (cs_open(CS_ARCH_X86, CS_MODE_64, &impl_->handle) != CS_ERR_OK) return;
  cs_option(impl_->handle, CS_OPT_DETAIL, CS_OPT_ON);
  impl_->ok = true;
}

PendingAccessDecoder::~PendingAccessDecoder() {
  if (impl_->ok) cs_close(&impl_->handle);
}

std::vector<uint64_t> PendingAccessDecoder::addresses(const uint8_t* code, size_t size, const user_regs_struct& regs) const {
  std::vector<uint64_t> out;
  if (!impl_->ok) return out;
  cs_insn* insn = nullptr;
  if (cs_disasm(impl_->handle, code, size, regs.rip, 1, &insn) != 1) return out;
  const cs_x86& x86 = insn->detail->x86;
  for (uint8_t i = 0; i < x86.op_count; ++i) {
    const cs_x86_op& op = x86.operands[i];
    if (op.type != X86_OP_MEM) continue;
    uint64_t a = static_cast<uint64_t>(op.mem.disp);
    bool known = true;
    if (op.mem.base == X86_REG_RIP) {
      a += regs.rip + insn->size;
    } else if (op.mem.base != X86_REG_INVALID) {
      auto v = reg_value(op.mem.base, regs);
      known = v.has_value();
      a += v.value_or(0);
    }
    if (op.mem.index != X86_REG_INVALID) {
      auto v = reg_value(op.mem.index, regs);
      known = known && v.has_value();
      a += v.value_or(0) * static_cast<uint64_t>(op.mem.scale);
    }
    if (op.mem.segment == X86_REG_FS) a += regs.fs_base;
    if (op.mem.segment == X86_REG_GS) a += regs.gs_base;
    if (known) out.push_back(a);
  }
  cs_free(insn, 1);
  return out;
}

}  // namespace slsdbg::recorder
