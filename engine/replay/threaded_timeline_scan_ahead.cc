// A threaded reverse continue on two CPUs. Its search collects one whole
// segment at a time from that segment's own restore, so two segments are
// independent: while this thread collects segment s, a worker thread with
// a ThreadedTimeline of its own (its own restores, every tracee traced by
// it) collects s - 1, pinned with its restores to another CPU. The newer
// segment's hits win; the older's are used only when the newer has none.
// Only for breakpoints (no watches, syscall catches or fork stops), never
// for segment 0 (ld.so stores CPUID's leaves, whose APIC id differs on
// another CPU). Each segment is still judged at the next checkpoint
// (every thread's registers, dirty pages), so a run that went another way
// there fails, and that segment is collected again here, on the recorded
// CPU.
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "engine/replay/replay_helpers.h"
#include "engine/replay/scan_cpu.h"
#include "engine/replay/threaded_timeline_impl.h"
#include "process/cpu.h"

namespace slsdbg::replay {

class ThreadedTimeline::Impl::SegmentAhead {
 public:
  SegmentAhead(const Impl& owner, uint64_t seg, int cpu) : seg_(seg) {
    thread_ = std::thread([this, &reader = owner.reader, bps = owner.user_bps, cpu] {
      run(reader, bps, cpu);
      done_.store(true);
    });
  }
  ~SegmentAhead() {
    cancel_.store(true);
    // Deep in a long segment the worker looks at the cancel only between
    // runs: its replayed process is killed, so the join is prompt.
    if (const pid_t pid = tracee_.load(); pid > 0 && thread_.joinable()) ::kill(pid, SIGKILL);
    if (thread_.joinable()) thread_.join();
  }
  SegmentAhead(const SegmentAhead&) = delete;
  SegmentAhead& operator=(const SegmentAhead&) = delete;

  Result<std::vector<Hit>> result(const std::function<bool()>& interrupted) {
    while (!done_.load()) {
      if (interrupted && interrupted()) return Error::msg("interrupted");
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    if (thread_.joinable()) thread_.join();
    return std::move(result_);
  }
  uint64_t seg() const { return seg_; }

 private:
  void run(const store::RecordingReader& reader, const std::set<uint64_t>& bps, int cpu) {
    // The tracer thread on its tracees' CPU: a cross-CPU wake-up per stop costs more than the stop.
    if (Status st = process::pin_to_cpu(cpu); !st.ok()) {
      result_ = st.take_error();
      return;
    }
    const ReplayCpuScope on(cpu);
    Impl w(reader);
    w.user_bps = bps;
    w.interrupted = [this] { return cancel_.load(std::memory_order_relaxed); };
    w.tracee_published = &tracee_;
    result_ = w.collect(seg_, Position{seg_, true});
    tracee_.store(0);
    if (cancel_.load()) result_ = Error::msg("cancelled");
  }

  const uint64_t seg_;
  std::atomic<bool> cancel_{false};
  std::atomic<bool> done_{false};  // result_ is set
  std::atomic<pid_t> tracee_{0};
  Result<std::vector<Hit>> result_ = Error::msg("not run");
  std::thread thread_;
};

void ThreadedTimeline::Impl::SegmentAheadEnd::operator()(SegmentAhead* a) const { delete a; }

ThreadedTimeline::Impl::SegmentAheadPtr ThreadedTimeline::Impl::collect_ahead(uint64_t seg, uint64_t from_k) {
  if (seg == 0 || seg >= from_k || user_bps.empty() || !user_watches.empty() || catching || fork_stops ||
      vfork_stops || scan_ahead_off() || is_exec_checkpoint(reader, seg + 1))
    return nullptr;
  const int cpu = other_cpu(replay_cpu(reader));
  if (cpu < 0) return nullptr;
  SLSDBG_DEBUG("replay", "reverse-continue: segment %llu collected on CPU %d meanwhile", (unsigned long long)seg, cpu);
  return SegmentAheadPtr(new SegmentAhead(*this, seg, cpu));
}

Result<std::vector<ThreadedTimeline::Impl::Hit>> ThreadedTimeline::Impl::ahead_result(SegmentAhead& a) {
  return a.result(interrupted);
}

uint64_t ThreadedTimeline::Impl::ahead_segment(const SegmentAhead& a) const { return a.seg(); }

}  // namespace slsdbg::replay
