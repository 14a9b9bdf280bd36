// A diversion (rr's term): a forked copy of the replayed process at the
// current moment, where GDB's inferior calls (`print f(3)`) and register or
// memory writes run for real. The recorded history is untouched: the copy is
// discarded at the next move of the timeline. Its system calls cannot touch a
// file (diversion_syscalls.h).
#pragma once

#include <cstdint>
#include <memory>
#include <set>
#include <span>
#include <vector>

#include "common/result.h"
#include "engine/replay/timeline.h"
#include "gdbserver/protocol/target.h"
#include "process/task.h"

namespace slsdbg::gdbserver {

class Diversion {
 public:
  static Result<std::unique_ptr<Diversion>> start(replay::Timeline& timeline);
  ~Diversion();

  process::Task& task() { return task_; }
  // Runs the copy (one instruction when `step`) until one of `breakpoints`,
  // a signal, or its end. Syscalls touch nothing outside the copy
  // (diversion_syscalls.h). The copy's signals are reported, never delivered.
  Result<StopReason> resume(Tid reported_tid, bool step, const std::set<uint64_t>& breakpoints, StopRequest& stop);

 private:
  explicit Diversion(process::Task task) : task_(std::move(task)) {}
  process::Task task_;
};

}  // namespace slsdbg::gdbserver
