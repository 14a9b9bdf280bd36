#include "process/signal_frame.h"

#include <cpuid.h>
#include <sys/syscall.h>

#include <string>
#include <vector>

#include "process/inject.h"

namespace slsdbg::process {

namespace {

constexpr uint64_t kRedZone = 128;       // x86-64 SysV, skipped by the kernel's get_sigframe
constexpr uint64_t kMagic2Size = 4;      // FP_XSTATE_MAGIC2 after the XSAVE area
constexpr uint64_t kFrameAlign = 64;

// The XSAVE size of the features enabled in XCR0: the kernel's user xstate
// size for a signal frame.
uint64_t user_xstate_size() {
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (!__get_cpuid_count(0xd, 0, &a, &b, &c, &d)) return 0;
  return b;
}

}  // namespace

Status clear_signal_fpu_area(Task& task) {
  const uint64_t size = user_xstate_size();
  if (size == 0) return ok_status();
  const user_regs_struct r = TRY(task.regs());
  const uint64_t sp = r.rsp - kRedZone;
  const uint64_t buf_fx = (sp - (size + kMagic2Size)) & ~(kFrameAlign - 1);
  std::vector<uint8_t> zeros(size, 0);
  // A stack too close to its end: leave it; the comparison at the segment's
  // end still treats such bytes as noise (engine/replay/xsave_noise.h).
  (void)task.write_memory(RemoteAddr(buf_fx), zeros);
  return ok_status();
}

Status set_frame_trapno(Task& task) {
  const int64_t r = TRY(inject_syscall(task, SYS_getpid, {0, 0, 0, 0, 0, 0}));
  if (r < 0) return Error::msg("injected getpid failed (" + std::to_string(r) + ")");
  return ok_status();
}

}  // namespace slsdbg::process
