#include "process/signal_frame.h"

#include <cpuid.h>
#include <signal.h>
#include <sys/syscall.h>

#include <string>
#include <vector>

#include "process/inject.h"
#include "process/x86_insn.h"

namespace slsdbg::process {

namespace {

constexpr uint64_t kMagic2Size = 4;      // FP_XSTATE_MAGIC2 after the XSAVE area
constexpr uint64_t kFrameAlign = 64;
constexpr int kAutoDisarm = 1 << 31;  // SS_AUTODISARM (linux/signal.h)

// The XSAVE size of the features enabled in XCR0: the kernel's user xstate
// size for a signal frame.
uint64_t user_xstate_size() {
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (!__get_cpuid_count(0xd, 0, &a, &b, &c, &d)) return 0;
  return b;
}

// Where get_sigframe() starts the frame: below the red zone, or the top of
// the alternate stack for an SA_ONSTACK handler when one is set and the
// thread is not on it already (SS_AUTODISARM: never counted as on it).
Result<uint64_t> signal_frame_start(Task& task, int signo, uint64_t rsp) {
  const uint64_t below_red_zone = rsp - kRedZoneBytes;  // skipped by the kernel's get_sigframe
  KernelSigaction act{};
  const int64_t got = TRY(inject_syscall(task, SYS_rt_sigaction,
                                         {static_cast<uint64_t>(signo), 0, kInjectScratchAddr, sizeof act.mask, 0, 0}));
  if (got != 0) return below_red_zone;
  TRY(task.read_memory(RemoteAddr(kInjectScratchAddr), std::span(reinterpret_cast<uint8_t*>(&act), sizeof act)));
  if (!(act.flags & SA_ONSTACK)) return below_red_zone;
  const stack_t ss = TRY(read_alt_stack(task));
  const uint64_t base = reinterpret_cast<uint64_t>(ss.ss_sp);
  if ((ss.ss_flags & SS_DISABLE) || ss.ss_size == 0) return below_red_zone;
  const bool on_it = !(ss.ss_flags & kAutoDisarm) && below_red_zone > base && below_red_zone - base <= ss.ss_size;
  return on_it ? below_red_zone : base + ss.ss_size;
}

}  // namespace

Status clear_signal_fpu_area(Task& task, int signo) {
  const uint64_t size = user_xstate_size();
  if (size == 0) return ok_status();
  const user_regs_struct r = TRY(task.regs());
  const uint64_t sp = TRY(signal_frame_start(task, signo, r.rsp));
  const uint64_t buf_fx = (sp - (size + kMagic2Size)) & ~(kFrameAlign - 1);
  std::vector<uint8_t> zeros(size, 0);
  // A stack too close to its end: leave it; the comparison at the segment's
  // end still treats such bytes as noise (engine/replay/xsave_noise.h).
  (void)task.write_memory(RemoteAddr(buf_fx), zeros);
  return ok_status();
}

Result<stack_t> read_alt_stack(Task& task) {
  const int64_t r = TRY(inject_syscall(task, SYS_sigaltstack, {0, kInjectScratchAddr, 0, 0, 0, 0}));
  if (r != 0) return Error::msg("injected sigaltstack failed (" + std::to_string(r) + ")");
  stack_t ss{};
  TRY(task.read_memory(RemoteAddr(kInjectScratchAddr), std::span(reinterpret_cast<uint8_t*>(&ss), sizeof ss)));
  return ss;
}

Status set_frame_trapno(Task& task) {
  const int64_t r = TRY(inject_syscall(task, SYS_getpid, {0, 0, 0, 0, 0, 0}));
  if (r < 0) return Error::msg("injected getpid failed (" + std::to_string(r) + ")");
  return ok_status();
}

}  // namespace slsdbg::process
