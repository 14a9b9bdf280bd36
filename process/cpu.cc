#include "process/cpu.h"

#include <cpuid.h>
#include <sched.h>

#include <cstdlib>
#include <cstring>

namespace slsdbg::process {

int choose_record_cpu() {
  int cpu = sched_getcpu();
  return cpu < 0 ? 0 : cpu;
}

namespace {
cpu_set_t affinity_now() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) CPU_SET(0, &set);
  return set;
}
// Read before main, while the process has one thread and pinned none.
const cpu_set_t g_start_cpus = affinity_now();
}  // namespace

cpu_set_t start_cpus() { return g_start_cpus; }

void pin_tracer_to_cpu(int cpu) {
  static const bool off = [] {
    const char* e = std::getenv("SLSDBG_TRACER_CPU");
    return e && std::strcmp(e, "any") == 0;
  }();
  if (off || cpu < 0 || cpu >= CPU_SETSIZE || !CPU_ISSET(cpu, &g_start_cpus)) return;
  (void)pin_to_cpu(cpu);
}

void unpin_thread() { (void)sched_setaffinity(0, sizeof g_start_cpus, &g_start_cpus); }

UnpinnedScope::UnpinnedScope() : was_(affinity_now()) { unpin_thread(); }
UnpinnedScope::~UnpinnedScope() { (void)sched_setaffinity(0, sizeof was_, &was_); }

Status pin_to_cpu(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  if (sched_setaffinity(0, sizeof set, &set) != 0) return Error::from_errno("sched_setaffinity");
  return ok_status();
}

namespace {

CpuidEntry query(uint32_t leaf, uint32_t subleaf) {
  CpuidEntry e{leaf, subleaf, 0, 0, 0, 0};
  __cpuid_count(leaf, subleaf, e.eax, e.ebx, e.ecx, e.edx);
  return e;
}

// Leaves whose output depends on ECX; 8 subleaves cover what exists today.
bool has_subleaves(uint32_t leaf) {
  switch (leaf) {
    case 0x4: case 0x7: case 0xb: case 0xd: case 0xf: case 0x10: case 0x12: case 0x14:
    case 0x17: case 0x18: case 0x1d: case 0x1e: case 0x1f: case 0x20: case 0x24:
    case 0x8000001d: case 0x80000020: case 0x80000026:
      return true;
    default:
      return false;
  }
}

void add_range(std::vector<CpuidEntry>& out, uint32_t first) {
  const uint32_t max = query(first, 0).eax;
  if (max < first || max - first > 0x100) return;
  for (uint32_t leaf = first; leaf <= max; leaf++) {
    const uint32_t subs = has_subleaves(leaf) ? 8 : 1;
    for (uint32_t s = 0; s < subs; s++) out.push_back(query(leaf, s));
  }
}

}  // namespace

std::vector<CpuidEntry> read_cpuid_leaves() {
  std::vector<CpuidEntry> out;
  add_range(out, 0);
  add_range(out, 0x80000000u);
  return out;
}

std::vector<uint8_t> encode_cpuid(const std::vector<CpuidEntry>& entries) {
  std::vector<uint8_t> blob(6 + 4 + entries.size() * 24);
  std::memcpy(blob.data(), "CPUID1", 6);
  const uint32_t n = static_cast<uint32_t>(entries.size());
  std::memcpy(blob.data() + 6, &n, 4);
  for (size_t i = 0; i < entries.size(); i++) std::memcpy(blob.data() + 10 + i * 24, &entries[i], 24);
  return blob;
}

Result<std::vector<CpuidEntry>> decode_cpuid(const std::vector<uint8_t>& blob) {
  if (blob.size() < 10 || std::memcmp(blob.data(), "CPUID1", 6) != 0)
    return Error::msg("CPUID record: unknown format");
  uint32_t n;
  std::memcpy(&n, blob.data() + 6, 4);
  if (blob.size() != 10 + size_t{n} * 24) return Error::msg("CPUID record: truncated");
  std::vector<CpuidEntry> out(n);
  for (uint32_t i = 0; i < n; i++) std::memcpy(&out[i], blob.data() + 10 + i * 24, 24);
  return out;
}

}  // namespace slsdbg::process
