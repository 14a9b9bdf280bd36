// What tells two positions of one event window apart when their moment is
// not counted: the registers (RF aside) and the top of the stack. Used to
// check a moment computed rather than counted (timeline_resolve_counted.cc,
// timeline_step_over_call.cc); equal prints at two arrivals of a pc are
// possible in principle (state only in other memory), so callers fall back
// to an exact method on a mismatch, never the other way round.
#pragma once

#include <sys/user.h>

#include <cstdint>
#include <cstring>
#include <functional>
#include <span>
#include <vector>

#include "common/result.h"
#include "process/task.h"
#include "process/x86_insn.h"

namespace slsdbg::replay {

struct PositionPrint {
  user_regs_struct regs{};
  std::vector<uint8_t> stack;  // kStackBytes from rsp, our traps hidden
  static constexpr size_t kStackBytes = 512;

  static Result<PositionPrint> take(process::Task& task,
                                    const std::function<void(uint64_t, std::span<uint8_t>)>& hide_traps) {
    PositionPrint f;
    f.regs = TRY(task.regs());
    f.regs.eflags &= ~process::kEflagsRf;
    f.stack.resize(kStackBytes);
    if (!task.read_memory(RemoteAddr(f.regs.rsp), f.stack).ok()) f.stack.clear();
    else hide_traps(f.regs.rsp, f.stack);
    return f;
  }
  bool operator==(const PositionPrint& o) const {
    return std::memcmp(&regs, &o.regs, sizeof regs) == 0 && stack == o.stack;
  }
};

}  // namespace slsdbg::replay
