#include "engine/dump/disassembler.h"

#include <capstone/capstone.h>

#include <cstdio>
#include <deque>

namespace slsdbg::dump {

namespace {

constexpr uint64_t kMaxLeadIn = 4096;  // decode at most this far before the pc
constexpr size_t kMaxInsn = 15;

struct Handle {
  csh h = 0;
  bool ok = false;
  Handle() { ok = cs_open(CS_ARCH_X86, CS_MODE_64, &h) == CS_ERR_OK; }
  ~Handle() {
    if (ok) cs_close(&h);
  }
};

Instruction to_instruction(const cs_insn& insn, uint64_t pc) {
  Instruction out;
  out.address = insn.address;
  char hex[4];
  for (size_t i = 0; i < insn.size; i++) {
    std::snprintf(hex, sizeof hex, "%02x", insn.bytes[i]);
    out.bytes += hex;
  }
  out.text = insn.mnemonic;
  if (insn.op_str[0]) out.text += std::string(" ") + insn.op_str;
  out.at_pc = insn.address == pc;
  return out;
}

}  // namespace

Result<std::vector<Instruction>> disassemble_around(MemorySource& memory, uint64_t pc, uint64_t function_start,
                                                    const DisasmWindow& window) {
  uint64_t start = (function_start && function_start <= pc && pc - function_start <= kMaxLeadIn) ? function_start : pc;
  size_t size = static_cast<size_t>(pc - start) + (window.after + 1) * kMaxInsn;
  std::vector<uint8_t> code(size);
  // Near the end of a mapping, shrink the window until it reads.
  while (!code.empty() && !memory.read(start, code).ok()) code.resize(code.size() / 2);
  if (code.size() < pc - start + 1) return Error::msg("cannot read code at the pc");

  Handle cs;
  if (!cs.ok) return Error::msg("capstone: cs_open failed");
  cs_insn* insn = cs_malloc(cs.h);
  const uint8_t* p = code.data();
  size_t left = code.size();
  uint64_t addr = start;
  std::deque<Instruction> before;
  std::vector<Instruction> out;
  bool reached = false;
  while (left > 0 && cs_disasm_iter(cs.h, &p, &left, &addr, insn)) {
    if (!reached && insn->address + insn->size <= pc) {
      before.push_back(to_instruction(*insn, pc));
      if (before.size() > window.before) before.pop_front();
      continue;
    }
    if (!reached) {
      reached = true;
      // Decoding from the function start did not land on the pc (data in
      // code, or a wrong symbol): restart at the pc.
      if (insn->address != pc) {
        before.clear();
        p = code.data() + (pc - start);
        left = code.size() - (pc - start);
        addr = pc;
        continue;
      }
    }
    out.push_back(to_instruction(*insn, pc));
    if (out.size() > window.after) break;
  }
  cs_free(insn, 1);
  out.insert(out.begin(), before.begin(), before.end());
  if (out.empty()) return Error::msg("cannot decode an instruction at the pc");
  return out;
}

}  // namespace slsdbg::dump
