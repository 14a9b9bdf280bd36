// The CPUID record of the CPU the recorder is pinned to, kept per boot in the
// per-user cache. In the project's VMs every CPUID instruction is a VM exit
// (10-28 us here), and reading all ~150 leaves took 1.5-4 ms of every
// recording's start, before the program's first instruction; the values do
// not change until a reboot (docs/performance.md `### Fixed cost`).
#pragma once

#include <string>
#include <vector>

#include "process/cpu.h"

namespace slsdbg::process {

// read_cpuid_leaves() for a thread pinned to a single CPU, from
// `cache_dir`/BOOT_ID-CPU when an earlier call of this boot left it there,
// else read and left there. A cached record is used only if its leaf 1
// (features, family, APIC id) equals this CPU's now. An unpinned thread (it
// could move between the reads), or an empty `cache_dir`, reads afresh.
std::vector<CpuidEntry> cpuid_leaves_of_pinned_cpu(const std::string& cache_dir);

// $SLSDBG_CACHE_DIR/cpuid (or the default cache root's), "" when off.
std::string cpuid_cache_dir();

}  // namespace slsdbg::process
