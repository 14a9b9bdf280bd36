// Small pieces both replayers use: the single-thread SegmentRun
// (replay_session.cc) and the threaded check (thread_check.cc).
#pragma once

#include <sys/user.h>

#include <array>
#include <cstdint>
#include <string>

#include "store/event.h"
#include "store/recording.h"

namespace slsdbg::replay {

// "0x1f".
std::string hex(uint64_t v);

// "openat(0xffffff9c, 0x55..., 0x0, ...)".
std::string describe_syscall(int64_t nr, const std::array<uint64_t, 6>& args);

// A logged event as a divergence report names it.
std::string describe_event(const store::Event& ev);

// For a successful mmap/mremap that let the kernel choose the address: turn
// the request in `r` into a fixed, no-replace one for the recorded result.
bool pin_placement(int64_t nr, const store::Event& ev, user_regs_struct& r);

// CPUID is not trapped: the program sees the CPU it runs on, and leaf 1
// carries the APIC id. The CPU the recording was made on (its APIC id from
// the recorded leaves; on this kind of VM APIC id == CPU number), or -1
// when it cannot be told.
int recorded_cpu(const store::RecordingReader& reader);

// The CPU this thread's replayed processes are pinned to: the recorded one,
// unless a ReplayCpuScope of this thread names another (a reverse scan's
// second thread, timeline_scan_ahead.cc); -1: not pinned.
int replay_cpu(const store::RecordingReader& reader);
class ReplayCpuScope {
 public:
  explicit ReplayCpuScope(int cpu);
  ~ReplayCpuScope();
  ReplayCpuScope(const ReplayCpuScope&) = delete;
  ReplayCpuScope& operator=(const ReplayCpuScope&) = delete;

 private:
  int was_;
};

}  // namespace slsdbg::replay
