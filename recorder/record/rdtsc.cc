#include "recorder/record/rdtsc.h"

#include <x86intrin.h>

#include "process/x86_insn.h"

namespace slsdbg::recorder {

std::optional<TscInsn> tsc_instruction_at(const uint8_t* code) {
  if (code[0] == 0x0f && code[1] == 0x31) return TscInsn::Rdtsc;
  if (code[0] == 0x0f && code[1] == 0x01 && code[2] == 0xf9) return TscInsn::Rdtscp;
  return std::nullopt;
}

store::Event emulate_tsc(TscInsn insn, pid_t tid, user_regs_struct& regs) {
  store::Event ev;
  ev.kind = store::EventKind::Rdtsc;
  ev.tid = Tid(tid);
  ev.pc = regs.rip;
  if (insn == TscInsn::Rdtscp) {
    unsigned aux = 0;
    ev.tsc = __rdtscp(&aux);
    ev.tsc_aux = aux;
    ev.is_rdtscp = true;
    regs.rcx = aux;
    regs.rip += 3;
  } else {
    ev.tsc = __rdtsc();
    regs.rip += 2;
  }
  regs.rax = ev.tsc & 0xffffffffu;
  regs.rdx = ev.tsc >> 32;
  // The #GP left RF set in the saved flags; a native rdtsc completes without
  // it, and a signal delivered right after would save it in its frame (a
  // stack byte replay, which also clears it, cannot reproduce).
  regs.eflags &= ~process::kEflagsRf;
  return ev;
}

}  // namespace slsdbg::recorder
