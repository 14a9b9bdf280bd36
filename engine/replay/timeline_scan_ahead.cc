// A reverse continue's scan on two CPUs. The scan runs every segment back
// to the last hit once, at about native speed, so its time is the history's
// CPU time: one thread cannot beat it. While this thread counts the newer
// batch, a second thread counts the next older one, as wide, with a
// Timeline of its own (its own restores, all its tracees traced by it)
// pinned to another CPU. The newer batch's answer wins; the older one's is
// used only when the newer holds no hit.
//
// Exactness: the other CPU changes only what the program could read of the
// CPU's identity (CPUID's APIC id, rdpid), and every segment is still
// judged by its arrival at the next checkpoint (registers and dirty pages),
// so a run that went another way fails, and that batch is scanned again
// here, on the recorded CPU. The reader is shared (store/ reads are
// thread-safe); the head's replay ratio is shared under a lock.
#include <sched.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>

#include "common/log.h"
#include "engine/replay/replay_helpers.h"
#include "engine/replay/timeline_impl.h"
#include "process/cpu.h"

namespace slsdbg::replay {

namespace {

bool scan_ahead_off() {
  const char* e = std::getenv("SLSDBG_REPLAY_SCAN_AHEAD");
  return e && std::string(e) == "off";
}

// A CPU this process may run on other than the one replayed processes are
// pinned to; -1: none. The process's CPUs as it started: this thread is
// pinned with its tracees by now (pin_tracer_to_cpu).
int other_cpu(int pinned) {
  const cpu_set_t set = process::start_cpus();
  if (CPU_COUNT(&set) < 2) return -1;
  const int n = static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));
  for (int i = 1; i <= n; i++) {
    const int cpu = (std::max(pinned, 0) + i) % n;
    if (cpu != pinned && CPU_ISSET(cpu, &set)) return cpu;
  }
  return -1;
}

}  // namespace

class Timeline::Impl::ScanAhead {
 public:
  ScanAhead(const Impl& owner, uint64_t lo, uint64_t hi, int cpu) : lo_(lo), hi_(hi) {
    thread_ = std::thread([this, &reader = owner.reader, n = owner.checkpoints, tid = owner.recorded_tid,
                           pid = owner.pid, bps = owner.user.breakpoints, cpu] {
      run(reader, n, tid, pid, bps, cpu);
      done_.store(true);
    });
  }
  ~ScanAhead() {
    cancel_.store(true);
    // Deep in a long CPU-bound segment the worker polls the cancel only at
    // the segment's end: its tracee (a restore, in a process group of its
    // own with the copies forked from it) is killed, so the join is prompt.
    if (const pid_t pid = tracee_.load(); pid > 0 && thread_.joinable()) {
      if (getpgid(pid) == pid) ::kill(-pid, SIGKILL);
      else ::kill(pid, SIGKILL);
    }
    if (thread_.joinable()) thread_.join();
  }
  ScanAhead(const ScanAhead&) = delete;
  ScanAhead& operator=(const ScanAhead&) = delete;

  // The worker's answer; the user's interrupt (`interrupted`) ends the wait
  // early: deep in a long segment the worker may need seconds more (it is
  // cancelled when this is destroyed).
  Result<CountedScan> result(const std::function<bool()>& interrupted) {
    while (!done_.load()) {
      if (interrupted && interrupted()) return Error::msg("interrupted");
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    if (thread_.joinable()) thread_.join();
    return std::move(result_);
  }
  uint64_t lo() const { return lo_; }
  uint64_t hi() const { return hi_; }

 private:
  void run(const store::RecordingReader& reader, uint64_t checkpoints, Tid tid, pid_t pid,
           const std::set<uint64_t>& breakpoints, int cpu) {
    // The tracer thread on the tracees' CPU: a cross-CPU wake-up per stop costs more than the stop.
    if (Status st = process::pin_to_cpu(cpu); !st.ok()) {
      result_ = st.take_error();
      return;
    }
    const ReplayCpuScope on(cpu);
    TimelineOptions o;
    o.interrupted = [this] { return cancel_.load(std::memory_order_relaxed); };
    o.max_snapshots = 0;  // every batch is one restore; nothing to fork again
    o.max_moment_snapshots = 0;
    // Its tracees die with it, in this thread (their tracer).
    Impl w(reader, std::move(o));
    w.checkpoints = checkpoints;
    w.recorded_tid = tid;
    w.pid = pid;
    w.user.breakpoints = breakpoints;
    w.interruptible = true;
    w.tracee_published = &tracee_;
    result_ = w.scan_counted(lo_, hi_, std::nullopt);
    tracee_.store(0);
    if (cancel_.load()) result_ = Error::msg("cancelled");
  }

  const uint64_t lo_, hi_;
  std::atomic<bool> cancel_{false};
  std::atomic<bool> done_{false};  // result_ is set
  std::atomic<pid_t> tracee_{0};  // the worker's replayed process, while it runs
  Result<CountedScan> result_ = Error::msg("not run");
  std::thread thread_;
};

void Timeline::Impl::ScanAheadEnd::operator()(ScanAhead* s) const { delete s; }

int Timeline::Impl::scan_ahead_cpu() const {
  if (scan_ahead_off() || !counting_allowed() || user.breakpoints.empty() || !user.watches.empty()) return -1;
  return other_cpu(recorded_cpu(reader));
}

Timeline::Impl::ScanAheadPtr Timeline::Impl::scan_ahead(uint64_t lo, uint64_t hi) {
  const int cpu = scan_ahead_cpu();
  if (cpu < 0) return nullptr;
  SLSDBG_DEBUG("timeline", "reverse-continue: segments %llu..%llu counted on CPU %d meanwhile", (unsigned long long)lo,
               (unsigned long long)hi, cpu);
  return ScanAheadPtr(new ScanAhead(*this, lo, hi, cpu));
}

Result<Timeline::Impl::CountedScan> Timeline::Impl::scan_ahead_result(ScanAhead& s) {
  return s.result(options.interrupted);
}

std::pair<uint64_t, uint64_t> Timeline::Impl::scan_ahead_range(const ScanAhead& s) { return {s.lo(), s.hi()}; }

}  // namespace slsdbg::replay
