#include "engine/replay/replay_helpers.h"

#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cinttypes>
#include <cstdio>
#include <utility>

#include "common/signal_name.h"
#include "process/cpu.h"
#include "process/syscalls/model.h"

namespace slsdbg::replay {

std::string hex(uint64_t v) {
  char b[32];
  std::snprintf(b, sizeof b, "0x%" PRIx64, v);
  return b;
}

std::string describe_syscall(int64_t nr, const std::array<uint64_t, 6>& args) {
  std::string s = std::string(process::syscall_name(nr)) + "(";
  for (size_t i = 0; i < args.size(); i++) s += (i ? ", " : "") + hex(args[i]);
  return s + ")";
}

std::string describe_event(const store::Event& ev) {
  switch (ev.kind) {
    case store::EventKind::Syscall:
      return "syscall " + describe_syscall(ev.syscall_no, ev.args) + " = " + std::to_string(ev.result);
    case store::EventKind::Signal: return "signal " + std::to_string(ev.signo);
    case store::EventKind::Rdtsc: return ev.is_rdtscp ? "rdtscp" : "rdtsc";
    case store::EventKind::ForcedCheckpoint: return "forced checkpoint";
    case store::EventKind::ThreadSwitch: return "switch to thread " + std::to_string(ev.tid.value);
    case store::EventKind::Exit:
      return ev.signo ? "exit (killed by " + signal_name(ev.signo) + ")"
                      : "exit with status " + std::to_string(ev.exit_status);
  }
  return "unknown event";
}

bool pin_placement(int64_t nr, const store::Event& ev, user_regs_struct& r) {
  if (ev.result < 0) return false;
  if (nr == SYS_mmap && !(ev.args[3] & (MAP_FIXED | MAP_FIXED_NOREPLACE))) {
    r.rdi = static_cast<uint64_t>(ev.result);
    r.r10 = ev.args[3] | MAP_FIXED_NOREPLACE;
    return true;
  }
  if (nr == SYS_mremap && (ev.args[3] & MREMAP_MAYMOVE) && !(ev.args[3] & MREMAP_FIXED) &&
      static_cast<uint64_t>(ev.result) != ev.args[0]) {
    r.r10 = ev.args[3] | MREMAP_FIXED;
    r.r8 = static_cast<uint64_t>(ev.result);
    return true;
  }
  return false;
}

int recorded_cpu(const store::RecordingReader& reader) {
  auto leaves = process::decode_cpuid(reader.meta().cpuid);
  if (!leaves.ok()) return -1;
  for (const process::CpuidEntry& e : *leaves)
    if (e.leaf == 1) {
      const int apic = static_cast<int>(e.ebx >> 24);
      return apic < sysconf(_SC_NPROCESSORS_ONLN) ? apic : -1;
    }
  return -1;
}

namespace {
constexpr int kRecordedCpu = -2;
thread_local int t_replay_cpu = kRecordedCpu;
}  // namespace

int replay_cpu(const store::RecordingReader& reader) {
  return t_replay_cpu == kRecordedCpu ? recorded_cpu(reader) : t_replay_cpu;
}

ReplayCpuScope::ReplayCpuScope(int cpu) : was_(std::exchange(t_replay_cpu, cpu)) {}
ReplayCpuScope::~ReplayCpuScope() { t_replay_cpu = was_; }

}  // namespace slsdbg::replay
