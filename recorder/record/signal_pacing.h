// Signal storms: every asynchronous signal is delivered right after a
// checkpoint of its own. When a checkpoint's stop lasts longer than the
// period of a program's timer, the next signal is pending again before the
// program has run at all, and the program only ever runs its handler (a
// livelock). SignalPacing lets such a signal wait, held like any other, for
// the next checkpoint the recorder takes anyway (the tick, brought forward
// to about when the program will have run that long, or the program's next
// syscall), once the program has had less CPU time since the last
// checkpoint than that checkpoint's stop took. Held standard signals merge
// as the kernel merges pending ones, so a fast timer costs at most one
// checkpoint per stop's worth of program CPU time, and the program always
// moves on. A later delivery is one the kernel could have made (a signal's
// delivery point is any instruction), and replay sees nothing new: the
// signal is still the leading event after a checkpoint.
#pragma once

#include <cstdint>
#include <optional>

namespace slsdbg::recorder {

class SignalPacing {
 public:
  // At the end of a checkpoint: the tracee's CPU time then (none: unknown)
  // and how long the tracee stayed stopped for it, --verify included.
  void checkpoint_done(std::optional<uint64_t> cpu_ns, uint64_t stopped_ns) {
    cpu_at_checkpoint_ = cpu_ns;
    last_stop_ns_ = stopped_ns;
    waiting_ = false;
  }
  // An asynchronous signal arrives with the tracee at `cpu_ns`: true when it
  // waits for a later checkpoint (then waiting() until one is taken).
  bool wait(std::optional<uint64_t> cpu_ns) {
    if (!cpu_ns || !cpu_at_checkpoint_ || *cpu_ns < *cpu_at_checkpoint_) return false;
    if (*cpu_ns - *cpu_at_checkpoint_ >= last_stop_ns_) return false;
    if (!waiting_) waited_++;
    waiting_ = true;
    return true;
  }
  bool waiting() const { return waiting_; }
  // How much more CPU time the program gets before a signal stops waiting.
  uint64_t wait_ns(uint64_t cpu_ns) const {
    const uint64_t ran = cpu_at_checkpoint_ && cpu_ns > *cpu_at_checkpoint_ ? cpu_ns - *cpu_at_checkpoint_ : 0;
    return ran < last_stop_ns_ ? last_stop_ns_ - ran : 0;
  }
  // Checkpoints a signal waited for (at most one per checkpoint).
  uint64_t waited() const { return waited_; }

 private:
  std::optional<uint64_t> cpu_at_checkpoint_;
  uint64_t last_stop_ns_ = 0;
  bool waiting_ = false;
  uint64_t waited_ = 0;
};

}  // namespace slsdbg::recorder
