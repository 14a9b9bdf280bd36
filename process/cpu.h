// CPU placement and identity: the recorder and the tracee run pinned to one
// CPU (a cross-CPU wake-up costs ~36 us per ptrace stop here), and the CPUID
// values the program could observe are stored with the recording.
#pragma once

#include <cstdint>
#include <vector>

#include "common/result.h"

namespace slsdbg::process {

// The CPU the recorder runs on now; both sides get pinned to it.
int choose_record_cpu();
Status pin_to_cpu(int cpu);  // calling thread

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
