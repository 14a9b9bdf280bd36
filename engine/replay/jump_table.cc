#include "engine/replay/jump_table.h"

#include <cstring>

namespace slsdbg::replay {

namespace {

constexpr uint64_t kMaxEntries = 4096;

bool reg_of(const cs_x86_op& op, uint32_t bit) { return op.type == X86_OP_REG && gpr_bit(op.reg) == bit; }

bool same_mem(const cs_x86_op& a, const cs_x86_op& b) {
  return a.type == X86_OP_MEM && b.type == X86_OP_MEM && a.size == b.size && a.mem.base == b.mem.base &&
         a.mem.index == b.mem.index && a.mem.scale == b.mem.scale && a.mem.disp == b.mem.disp &&
         a.mem.segment == b.mem.segment;
}

uint32_t mem_regs(const cs_x86_op& m) { return gpr_bit(m.mem.base) | gpr_bit(m.mem.index); }

bool is_bound_jump(const OpsInsn& j) { return j.id == X86_INS_JA || j.id == X86_INS_JAE; }

std::optional<std::vector<uint64_t>> read_entries(uint64_t table, uint64_t n, unsigned entry_size,
                                                  const CodeReader& read) {
  if (n == 0 || n > kMaxEntries) return std::nullopt;
  std::vector<uint8_t> raw(n * entry_size);
  if (!read(table, raw)) return std::nullopt;
  std::vector<uint64_t> out;
  for (uint64_t e = 0; e < n; e++) {
    if (entry_size == 4) {
      int32_t rel;
      std::memcpy(&rel, raw.data() + e * 4, 4);
      out.push_back(table + static_cast<uint64_t>(static_cast<int64_t>(rel)));
    } else {
      uint64_t abs;
      std::memcpy(&abs, raw.data() + e * 8, 8);
      out.push_back(abs);
    }
  }
  return out;
}

}  // namespace

uint32_t gpr_bit(unsigned r) {
  static constexpr unsigned kFamilies[][4] = {
      {X86_REG_RAX, X86_REG_EAX, X86_REG_AX, X86_REG_AL},     {X86_REG_RBX, X86_REG_EBX, X86_REG_BX, X86_REG_BL},
      {X86_REG_RCX, X86_REG_ECX, X86_REG_CX, X86_REG_CL},     {X86_REG_RDX, X86_REG_EDX, X86_REG_DX, X86_REG_DL},
      {X86_REG_RSI, X86_REG_ESI, X86_REG_SI, X86_REG_SIL},    {X86_REG_RDI, X86_REG_EDI, X86_REG_DI, X86_REG_DIL},
      {X86_REG_RBP, X86_REG_EBP, X86_REG_BP, X86_REG_BPL},    {X86_REG_RSP, X86_REG_ESP, X86_REG_SP, X86_REG_SPL},
      {X86_REG_R8, X86_REG_R8D, X86_REG_R8W, X86_REG_R8B},    {X86_REG_R9, X86_REG_R9D, X86_REG_R9W, X86_REG_R9B},
      {X86_REG_R10, X86_REG_R10D, X86_REG_R10W, X86_REG_R10B}, {X86_REG_R11, X86_REG_R11D, X86_REG_R11W, X86_REG_R11B},
      {X86_REG_R12, X86_REG_R12D, X86_REG_R12W, X86_REG_R12B}, {X86_REG_R13, X86_REG_R13D, X86_REG_R13W, X86_REG_R13B},
      {X86_REG_R14, X86_REG_R14D, X86_REG_R14W, X86_REG_R14B}, {X86_REG_R15, X86_REG_R15D, X86_REG_R15W, X86_REG_R15B},
  };
  for (unsigned f = 0; f < 16; f++)
    for (unsigned m : kFamilies[f])
      if (m == r) return 1u << f;
  return 0;
}

std::optional<JumpTable> jump_table_targets(std::span<const OpsInsn> window, std::span<const RipLea> leas,
                                            const CodeReader& read) {
  if (window.empty()) return std::nullopt;
  const OpsInsn& jmp = window.back();
  if (jmp.id != X86_INS_JMP || jmp.x.op_count != 1) return std::nullopt;
  const cs_x86_op& target = jmp.x.operands[0];
  size_t k = window.size() - 1;  // walks back from the jump; window[k] is the last one looked at
  uint32_t index = 0, base = 0;
  uint64_t table = 0;
  unsigned entry_size = 0;
  if (target.type == X86_OP_MEM) {
    // jmp qword [idx*8 + table]: absolute entries.
    if (target.mem.base != X86_REG_INVALID || target.mem.scale != 8 || target.size != 8 ||
        target.mem.segment != X86_REG_INVALID)
      return std::nullopt;
    index = gpr_bit(target.mem.index);
    table = static_cast<uint64_t>(target.mem.disp);
    entry_size = 8;
  } else if (target.type == X86_OP_REG) {
    const uint32_t t = gpr_bit(target.reg);
    if (k < 2) return std::nullopt;
    const OpsInsn& add = window[--k];  // add t, base
    if (add.id != X86_INS_ADD || add.x.op_count != 2 || !reg_of(add.x.operands[0], t) ||
        add.x.operands[1].type != X86_OP_REG || add.x.operands[1].size != 8)
      return std::nullopt;
    base = gpr_bit(add.x.operands[1].reg);
    const OpsInsn& load = window[--k];  // movsxd t, dword [base + idx*4]
    if (load.id != X86_INS_MOVSXD || load.x.op_count != 2 || !reg_of(load.x.operands[0], t) ||
        load.x.operands[1].type != X86_OP_MEM)
      return std::nullopt;
    const x86_op_mem& m = load.x.operands[1].mem;
    if (gpr_bit(m.base) != base || m.scale != 4 || m.disp != 0 || m.segment != X86_REG_INVALID) return std::nullopt;
    index = gpr_bit(m.index);
    if (base == 0 || t == 0 || index == base) return std::nullopt;
    entry_size = 4;
  } else {
    return std::nullopt;
  }
  if (index == 0) return std::nullopt;
  // Walk back to the bound; on the way, the base's lea if it is there.
  bool base_found = base == 0;
  std::optional<cs_x86_op> zx_mem;  // the index was loaded from this word after the bound
  uint64_t unguarded_from = 0;
  while (k > 0) {
    const OpsInsn& i = window[--k];
    if (!base_found && i.id == X86_INS_LEA && reg_of(i.x.operands[0], base) && i.x.operands[1].type == X86_OP_MEM &&
        i.x.operands[1].mem.base == X86_REG_RIP && i.x.operands[1].mem.index == X86_REG_INVALID) {
      table = i.at + i.size + static_cast<uint64_t>(i.x.operands[1].mem.disp);
      base_found = true;
      continue;
    }
    if (k > 0 && is_bound_jump(i) && window[k - 1].id == X86_INS_CMP) {
      const OpsInsn& cmp = window[k - 1];
      const cs_x86_op& lhs = cmp.x.operands[0];
      const cs_x86_op& rhs = cmp.x.operands[1];
      const bool on_reg = !zx_mem && reg_of(lhs, index);
      const bool on_mem = zx_mem && same_mem(lhs, *zx_mem);
      if (cmp.x.op_count != 2 || rhs.type != X86_OP_IMM || rhs.imm < 0 || (!on_reg && !on_mem)) return std::nullopt;
      const uint64_t n = static_cast<uint64_t>(rhs.imm) + (i.id == X86_INS_JA ? 1 : 0);
      unguarded_from = i.at + i.size;
      // A compare of a part of the index (`cmp al, 7` after a movzx on
      // another path) bounds it too: the compiler emits it only where the
      // rest is known zero, and any index the bound lets through reads the
      // table, so the table has n entries.
      if (base_found) {
        std::optional<std::vector<uint64_t>> targets = read_entries(table, n, entry_size, read);
        if (!targets) return std::nullopt;
        return JumpTable{std::move(*targets), unguarded_from};
      }
      // The base was set before the dispatch's block (a register kept for a
      // loop's dispatch, a call or a join in between). Compilers materialise
      // a table's address only by a rip-relative lea, so the entries of every
      // such lea of the base in the function are taken: a wrong candidate
      // only adds targets, which refuses more anchors, never fewer.
      JumpTable out{{}, unguarded_from};
      for (const RipLea& l : leas) {
        if (l.reg != base) continue;
        std::optional<std::vector<uint64_t>> targets = read_entries(l.addr, n, entry_size, read);
        if (!targets) return std::nullopt;
        out.targets.insert(out.targets.end(), targets->begin(), targets->end());
      }
      if (out.targets.empty()) return std::nullopt;
      return out;
    }
    if (i.id == X86_INS_MOV && i.x.op_count == 2 && reg_of(i.x.operands[0], index) &&
        i.x.operands[0].size == 4 && i.x.operands[1].type == X86_OP_REG && i.x.operands[1].size == 4 && !zx_mem) {
      index = gpr_bit(i.x.operands[1].reg);  // mov idx32, other32: the bound is on the other
      if (index == 0 || index == base) return std::nullopt;
      continue;
    }
    if (i.id == X86_INS_MOVZX && reg_of(i.x.operands[0], index) && i.x.operands[1].type == X86_OP_MEM && !zx_mem) {
      zx_mem = i.x.operands[1];  // the bound is on the same word in memory
      continue;
    }
    if (i.writes & (index | (base_found ? 0 : base))) return std::nullopt;
    // Between the bound and the load, nothing may change the word.
    if (zx_mem && ((i.writes & mem_regs(*zx_mem)) || (i.id != X86_INS_LEA && i.x.op_count > 0 &&
                                                        i.x.operands[0].type == X86_OP_MEM)))
      return std::nullopt;
    if (i.id == X86_INS_JMP || i.id == X86_INS_CALL || i.id == X86_INS_RET) return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace slsdbg::replay
