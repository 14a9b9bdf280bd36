// The tick: a periodic timer aimed at the recorder's own thread whose signal
// interrupts the recorder's waitpid (EINTR), so the loop can PTRACE_INTERRUPT
// the tracee and take a checkpoint every --interval.
#pragma once

#include <sys/types.h>
#include <time.h>

#include <cstdint>
#include <memory>

#include "common/result.h"

namespace slsdbg::recorder {

class Tick {
 public:
  ~Tick();
  // Starts a periodic timer of `interval_ns` on the calling thread.
  static Result<std::unique_ptr<Tick>> start(uint64_t interval_ns);
  // True once per expiry since the last call.
  bool take_due();
  void stop();
  // Starts a full interval from now and forgets an expiry that came due
  // meanwhile: after a checkpoint that took longer than the interval, the
  // program still runs a whole interval before the next one (the interval
  // stretches; `info` reports it) instead of being checkpointed back to back.
  void rearm();
  // The period rearm() starts from now on (IntervalPolicy stretches it).
  void set_interval(uint64_t interval_ns) { interval_ns_ = interval_ns; }
  // The tick signal is blocked except while the recorder waits for the
  // tracee, so no other blocking call (the store's io_uring, capture's
  // injections) ever sees EINTR from it.
  void allow();
  void hold();
  // Makes the tick of the recorder thread `owner` come due now; callable from
  // any thread, even after the Tick is gone (a deferred copy that found its
  // checkpoint torn wants the retake at once).
  pid_t owner() const { return owner_tid_; }
  static void fire_now(pid_t owner);

 private:
  Tick() = default;
  pid_t owner_tid_ = 0;
  timer_t timer_{};
  bool armed_ = false;
  uint64_t interval_ns_ = 0;
};

}  // namespace slsdbg::recorder
