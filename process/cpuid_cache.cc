#include "process/cpuid_cache.h"

#include <cpuid.h>
#include <fcntl.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <optional>

#include "common/fd.h"
#include "store/kept_file_cache.h"

namespace slsdbg::process {

namespace {

constexpr size_t kMaxRecord = 64 * 1024;

// /proc/sys/kernel/random/boot_id without its dashes: new at every boot.
std::string boot_id() {
  UniqueFd fd(::open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC));
  char buf[64];
  const ssize_t n = fd.valid() ? ::read(fd.get(), buf, sizeof buf) : -1;
  std::string id;
  for (ssize_t i = 0; i < n; i++)
    if (std::isxdigit(static_cast<unsigned char>(buf[i]))) id += buf[i];
  return id.size() == 32 ? id : "";
}

// The one CPU this thread may run on, or -1.
int pinned_cpu() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) != 0 || CPU_COUNT(&set) != 1) return -1;
  for (int c = 0; c < CPU_SETSIZE; c++)
    if (CPU_ISSET(c, &set)) return c;
  return -1;
}

bool same_leaf_one(const std::vector<CpuidEntry>& cached) {
  auto it = std::find_if(cached.begin(), cached.end(), [](const CpuidEntry& e) { return e.leaf == 1 && e.subleaf == 0; });
  if (it == cached.end()) return false;
  uint32_t a, b, c, d;
  __cpuid_count(1, 0, a, b, c, d);
  return it->eax == a && it->ebx == b && it->ecx == c && it->edx == d;
}

}  // namespace

std::string cpuid_cache_dir() { return store::user_cache_dir("cpuid"); }

std::vector<CpuidEntry> cpuid_leaves_of_pinned_cpu(const std::string& cache_dir) {
  const int cpu = pinned_cpu();
  const std::string boot = cache_dir.empty() || cpu < 0 ? "" : boot_id();
  if (boot.empty()) return read_cpuid_leaves();
  const std::string name = boot + "-" + std::to_string(cpu);
  if (std::optional<std::string> blob = store::read_private_file(cache_dir + "/" + name, kMaxRecord)) {
    auto cached = decode_cpuid(std::vector<uint8_t>(blob->begin(), blob->end()));
    if (cached.ok() && same_leaf_one(*cached)) return std::move(*cached);
  }
  std::vector<CpuidEntry> leaves = read_cpuid_leaves();
  const std::vector<uint8_t> blob = encode_cpuid(leaves);
  store::write_private_file(cache_dir, name, std::string(blob.begin(), blob.end()));
  return leaves;
}

}  // namespace slsdbg::process
