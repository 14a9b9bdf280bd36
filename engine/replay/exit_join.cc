#include "engine/replay/exit_join.h"

#include <linux/futex.h>
#include <sys/syscall.h>

namespace slsdbg::replay {

namespace {

bool is_futex_wait(int64_t nr, uint64_t addr, uint64_t op_arg, uint64_t word) {
  const int op = static_cast<int>(op_arg) & FUTEX_CMD_MASK;
  return nr == SYS_futex && addr == word && (op == FUTEX_WAIT || op == FUTEX_WAIT_BITSET);
}

}  // namespace

std::optional<size_t> futex_wait_after(const std::vector<store::Event>& events, size_t from, uint64_t word) {
  for (size_t i = from + 1; word && i < events.size(); i++) {
    const store::Event& e = events[i];
    if (e.kind == store::EventKind::Syscall && is_futex_wait(e.syscall_no, e.args[0], e.args[1], word)) return i;
  }
  return std::nullopt;
}

bool waits_on_word_at(const store::ProcessState& at, Tid exiting, uint64_t word,
                      const std::function<bool(uint64_t pc)>& at_syscall_insn) {
  if (word == 0) return false;
  for (const store::ThreadState& t : at.threads) {
    if (t.tid == exiting || !is_futex_wait(static_cast<int64_t>(t.regs.rax), t.regs.rdi, t.regs.rsi, word)) continue;
    if (at_syscall_insn(t.regs.rip)) return true;
  }
  return false;
}

}  // namespace slsdbg::replay
