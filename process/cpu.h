// CPU placement and identity: the recorder and the tracee run pinned to one
// CPU (a cross-CPU wake-up costs ~36 us per ptrace stop here), and the CPUID
// values the program could observe are stored with the recording.
#pragma once

#include <sched.h>

#include <cstdint>
#include <vector>

#include "common/result.h"

namespace slsdbg::process {

// The CPU the recorder runs on now; both sides get pinned to it.
int choose_record_cpu();
Status pin_to_cpu(int cpu);  // calling thread

// The replay's tracer thread on its tracees' CPU: a ptrace stop whose
// wake-up crosses CPUs costs about 3x one that does not (a watch trap's
// round trip: 70 against 21 us on these VMs). Best effort: a CPU this
// thread may not use leaves it as it was. SLSDBG_TRACER_CPU=any turns it
// off (benchmarks compare).
void pin_tracer_to_cpu(int cpu);
// The CPUs this process could use when it started, before any pinning.
cpu_set_t start_cpus();
// The calling thread back on start_cpus(): a child about to exec a client
// (GDB, a server of its own) is not squeezed onto the tracees' CPU.
void unpin_thread();
// While it lives the calling thread runs on start_cpus(), for a
// posix_spawn (whose child takes the spawner's mask); then its own again.
class UnpinnedScope {
 public:
  UnpinnedScope();
  ~UnpinnedScope();
  UnpinnedScope(const UnpinnedScope&) = delete;
  UnpinnedScope& operator=(const UnpinnedScope&) = delete;

 private:
  cpu_set_t was_;
};

// One CPUID leaf/subleaf and its output registers.
struct CpuidEntry {
  uint32_t leaf, subleaf, eax, ebx, ecx, edx;
};

// Every basic and extended leaf (subleaves where they exist) of this CPU.
std::vector<CpuidEntry> read_cpuid_leaves();

// Encoding stored in RecordingMeta::cpuid: "CPUID1" + u32 count + 24-byte
// little-endian records (leaf, subleaf, eax, ebx, ecx, edx).
std::vector<uint8_t> encode_cpuid(const std::vector<CpuidEntry>& entries);
Result<std::vector<CpuidEntry>> decode_cpuid(const std::vector<uint8_t>& blob);

}  // namespace slsdbg::process
