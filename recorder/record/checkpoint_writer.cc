#include "recorder/record/checkpoint_writer.h"

#include <pthread.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <chrono>
#include <system_error>

#include "store/summary.h"

namespace slsdbg::recorder {

namespace {

// SCHED_IDLE while the writer keeps up: the threads that run inside the
// tracee's stop (the second half of the dirty-page scan) or right after it
// (a deferred copy) then take the CPU from it at once, not after its time
// slice (3 ms seen at nice 10). Only with CAP_SYS_NICE, which leaving
// SCHED_IDLE needs; without it the writer stays a normal thread.
constexpr size_t kIdleQueueDepth = 2;
// Events handed over raw (append_events) beyond this also lift it: at load
// 9-11 an idle-class writer ran none of a million buffered writes' ~88 MB
// of entries before the program ended, and the recording then waited for
// all of them (and a fresh buffer was mapped at every drain).
constexpr uint64_t kIdleEventBytes = uint64_t(8) << 20;

bool has_cap_sys_nice() {
  std::FILE* f = std::fopen("/proc/self/status", "r");
  if (!f) return false;
  char line[256];
  uint64_t caps = 0;
  while (std::fgets(line, sizeof line, f))
    if (std::sscanf(line, "CapEff: %" SCNx64, &caps) == 1) break;
  std::fclose(f);
  return caps & (1ull << 23);  // CAP_SYS_NICE
}

// CPUS without the caller's CPU, unless that leaves none. The recorder has
// pinned itself and the tracee there: a writer creating the store there
// held the program off it (checkpoint 0's stop waited ~7 ms for the CPU in
// every recording of /bin/true at load 2; the kernel is PREEMPT_NONE, so
// SCHED_IDLE does not help while the writer is inside a syscall).
cpu_set_t off_callers_cpu(const cpu_set_t& cpus) {
  cpu_set_t away = cpus;
  const int here = sched_getcpu();
  if (here >= 0 && here < CPU_SETSIZE && CPU_ISSET(here, &away) && CPU_COUNT(&away) > 1) CPU_CLR(here, &away);
  return away;
}

// By kernel thread id (0: the caller), not pthread_setschedparam: glibc
// holds the target's descriptor lock across that call, and a thread putting
// itself in SCHED_IDLE is switched out inside it on a busy CPU, with the
// lock held. The recorder's lift then waited for that lock, with mu_ held,
// until the idle-class thread got a CPU again: hundreds of ms, the tracee
// stopped (few ticks in thr_spin_busy's recordings beside CPU hogs, #18).
void set_idle(pid_t tid, bool idle) {
  sched_param p{};
  (void)sched_setscheduler(tid, idle ? SCHED_IDLE : SCHED_OTHER, &p);
}

}  // namespace

Result<std::unique_ptr<CheckpointWriter>> CheckpointWriter::start(std::unique_ptr<store::RecordingWriter> writer,
                                                                  const cpu_set_t& cpus, Limits limits) {
  std::unique_ptr<CheckpointWriter> w(new CheckpointWriter(std::move(writer), limits));
  try {
    w->thread_ = std::thread([p = w.get()] { p->thread_main(); });
  } catch (const std::system_error& e) {
    return Error{std::string("starting the checkpoint writer thread: ") + e.what(), e.code().value()};
  }
  w->thread_handle_ = w->thread_.native_handle();
  w->all_cpus_ = cpus;
  // Until the store is open (start_opening): creating it is most of a short
  // recording's kernel work (files, SQLite, io_uring).
  const cpu_set_t away = off_callers_cpu(cpus);
  (void)pthread_setaffinity_np(w->thread_handle_, sizeof away, &away);
  w->idle_class_allowed_ = has_cap_sys_nice();
  return w;
}

Result<std::unique_ptr<CheckpointWriter>> CheckpointWriter::start_opening(StoreOpener open, const cpu_set_t& cpus,
                                                                          Limits limits) {
  std::unique_ptr<CheckpointWriter> w = TRY(start(nullptr, cpus, limits));
  std::lock_guard<std::mutex> lock(w->mu_);
  w->enqueue_locked(OpenJob{std::move(open)});
  return w;
}

CheckpointWriter::~CheckpointWriter() {
  tell_thread_to_quit();
  if (thread_.joinable()) thread_.join();
}

void CheckpointWriter::tell_thread_to_quit() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (quit_) return;
    // The thread stores what is queued before it quits: whole checkpoints,
    // and the last segment's events as far as they came.
    if (!error_) hand_over_batch_locked();
    quit_ = true;
    // Someone joins it soon: as in wait(), an idle-class thread on a busy
    // machine would run only when a CPU idles (the join at the end of a
    // recording of /bin/true took 3.4 ms median at load 12).
    lift_idle_locked();
  }
  work_cv_.notify_all();
}

void CheckpointWriter::use_all_cpus() {
  // Best effort: where it runs only changes how much of its work overlaps.
  (void)pthread_setaffinity_np(thread_handle_, sizeof all_cpus_, &all_cpus_);
}

void CheckpointWriter::thread_main() {
  thread_tid_.store(pid_t(syscall(SYS_gettid)));
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    work_cv_.wait(lock, [&] { return !queue_.empty() || quit_; });
    if (queue_.empty()) return;  // quit, and everything queued is done
    Op op = std::move(queue_.front());
    queue_.pop_front();
    // Caught up: back to the idle class (the caller lifts it when the queue
    // grows). Not to create the store: it runs off the tracee's CPU then,
    // and idle there on a busy machine it had not begun when the program
    // had exited.
    const bool go_idle = idle_class_allowed_ && !idle_.load() && queued_checkpoints_ <= 1 &&
                         queued_event_bytes_ <= kIdleEventBytes && !std::holds_alternative<OpenJob>(op);
    if (go_idle) idle_.store(true);
    const bool skip = error_.has_value();  // nothing is stored after an error
    lock.unlock();
    if (go_idle) become_idle();
    Status st = skip ? ok_status() : run(op);
    const bool checkpoint = std::holds_alternative<CheckpointJob>(op);
    const uint64_t bytes = checkpoint ? std::get<CheckpointJob>(op).bytes : 0;
    const auto* events = std::get_if<EventsJob>(&op);
    const uint64_t event_bytes = events ? events->bytes : 0;
    // Release the pages (keepalive) before anyone can see the checkpoint done.
    op = Op();
    lock.lock();
    if (checkpoint && st.ok() && !skip) stats_.stored++;
    queued_event_bytes_ -= event_bytes;
    finished_op(checkpoint, bytes, std::move(st));
    // The wake-up after the unlock: an idle-class thread that wakes the
    // recorder is switched out for it at once, and with mu_ held the
    // recorder would then wait for mu_ until this thread got a CPU again.
    lock.unlock();
    done_cv_.notify_all();
    lock.lock();
  }
}

void CheckpointWriter::become_idle() {
  // Outside mu_: a thread that puts itself in SCHED_IDLE while others are
  // runnable on its CPU is switched out at once, and the recorder would
  // wait for any lock it holds until it gets a CPU again (see set_idle).
  set_idle(0, true);
  // A lift since the decision may have been made before the call above.
  if (!idle_.load()) set_idle(0, false);
}

Status CheckpointWriter::run(Op& op) {
  if (auto* job = std::get_if<OpenJob>(&op)) {
    Result<std::unique_ptr<store::RecordingWriter>> opened = job->open();
    // Checkpoints: anywhere. Kept off the tracee's CPU they were stored on
    // the CPU the capture's scan and copy threads use, and bench (b)'s stop
    // p50 rose from 2.8 to 5.2 ms (load 2-3).
    (void)pthread_setaffinity_np(pthread_self(), sizeof all_cpus_, &all_cpus_);
    writer_ = TRY(std::move(opened));
    return ok_status();
  }
  if (auto* job = std::get_if<CheckpointJob>(&op)) {
    Result<CheckpointId> k = writer_->add_checkpoint(job->input, job->reason);
    if (!k.ok()) return k.error().context("storing a checkpoint (" + job->reason + ")");
    return ok_status();
  }
  if (auto* job = std::get_if<EventsJob>(&op))
    return job->source([this](const store::Event& ev) -> Status {
      TRY_CTX(writer_->append_event(ev), "writing the event log");
      return ok_status();
    });
  for (const store::Event& ev : std::get<std::vector<store::Event>>(op))
    TRY_CTX(writer_->append_event(ev), "writing the event log");
  return ok_status();
}

void CheckpointWriter::finished_op(bool checkpoint, uint64_t bytes, Status st) {
  if (checkpoint) {
    queued_checkpoints_--;
    queued_bytes_ -= bytes;
  }
  if (!st.ok() && !error_) {
    error_ = st.take_error();
    failed_.store(true, std::memory_order_release);
  }
  // After the thread's last use of writer_ for this operation (see pending_).
  // The thread wakes done_cv_'s waiters once mu_ is released.
  pending_.fetch_sub(1, std::memory_order_release);
}

void CheckpointWriter::enqueue_locked(Op op) {
  queue_.push_back(std::move(op));
  pending_.fetch_add(1, std::memory_order_relaxed);  // only this thread increments; mu_ orders it for the thread
  work_cv_.notify_one();
}

void CheckpointWriter::hand_over_batch_locked() {
  if (batch_.empty()) return;
  enqueue_locked(std::move(batch_));
  batch_ = {};
}

bool CheckpointWriter::has_room_locked(uint64_t bytes) const {
  if (queued_checkpoints_ == 0) return true;
  return queued_checkpoints_ < limits_.max_checkpoints && queued_bytes_ + bytes <= limits_.max_bytes;
}

Status CheckpointWriter::fail(Error e) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!error_) {
    error_ = std::move(e);
    failed_.store(true, std::memory_order_release);
  }
  return *error_;
}

Status CheckpointWriter::first_error() const {
  std::lock_guard<std::mutex> lock(mu_);
  return error_ ? Status(*error_) : ok_status();
}

Status CheckpointWriter::append_event(const store::Event& event) {
  // Load pending_ first: reading 0 (acquire) also makes the thread's error visible.
  const bool busy = pending_.load(std::memory_order_acquire) != 0;
  if (failed_.load(std::memory_order_acquire)) return first_error();
  if (busy) {
    batch_.push_back(event);  // queued with the next checkpoint, or once idle
    return ok_status();
  }
  if (!batch_.empty()) {
    // Idle now, with events from while it was busy: let the thread write
    // them (their number is unbounded; the tracee should not wait for that).
    batch_.push_back(event);
    std::lock_guard<std::mutex> lock(mu_);
    hand_over_batch_locked();
    return ok_status();
  }
  // Idle and nothing queued: the thread does not touch writer_ until we queue.
  Status st = writer_->append_event(event);
  if (!st.ok()) return fail(st.error());
  return ok_status();
}

Status CheckpointWriter::append_events(EventSource source, uint64_t bytes) {
  std::unique_lock<std::mutex> lock(mu_);
  if (error_) return *error_;
  hand_over_batch_locked();  // the events before these go first
  if (queued_event_bytes_ + bytes > kIdleEventBytes) lift_idle_locked();
  if (queued_event_bytes_ != 0 && queued_event_bytes_ + bytes > limits_.max_bytes) {
    // The store is not keeping up with the program's calls: it waits, as
    // for checkpoints, rather than the recorder's memory growing without end.
    const auto t0 = std::chrono::steady_clock::now();
    done_cv_.wait(lock, [&] { return queued_event_bytes_ + bytes <= limits_.max_bytes || error_.has_value(); });
    stats_.blocked++;
    stats_.blocked_ns += std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count();
    if (error_) return *error_;
  }
  queued_event_bytes_ += bytes;
  enqueue_locked(EventsJob{std::move(source), bytes});
  return ok_status();
}

void CheckpointWriter::lift_idle_locked() {
  if (!idle_.load()) return;
  // The flag first: become_idle() reads it after its own change.
  idle_.store(false);
  set_idle(thread_tid_.load(), false);  // known: only the thread sets idle_
}

Status CheckpointWriter::add_in_background(store::CheckpointInput input, std::string reason,
                                           std::shared_ptr<const void> keepalive) {
  const uint64_t bytes = input.dirty.size() * kPageSize;
  std::unique_lock<std::mutex> lock(mu_);
  if (error_) return *error_;
  if (quit_) return Error::msg("storing a checkpoint: the recording is finished");
  hand_over_batch_locked();  // the previous segment's events go first
  if (!has_room_locked(bytes)) {
    const auto t0 = std::chrono::steady_clock::now();
    done_cv_.wait(lock, [&] { return has_room_locked(bytes) || error_.has_value(); });
    stats_.blocked++;
    stats_.blocked_ns += std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count();
    if (error_) return *error_;
  }
  queued_checkpoints_++;
  queued_bytes_ += bytes;
  // Behind: a fair share of the CPU again. An idle-class thread under load
  // may not run for seconds, fill the queue and hold the tracee; only this
  // side can lift it, since the starved thread cannot.
  if (queued_checkpoints_ > kIdleQueueDepth) lift_idle_locked();
  stats_.peak_queued = std::max<uint64_t>(stats_.peak_queued, queued_checkpoints_);
  enqueue_locked(CheckpointJob{std::move(input), std::move(reason), std::move(keepalive), bytes});
  return ok_status();
}

Status CheckpointWriter::wait() {
  if (pending_.load(std::memory_order_acquire) == 0 && batch_.empty()) return first_error();
  std::unique_lock<std::mutex> lock(mu_);
  if (!error_) hand_over_batch_locked();
  // The caller waits for nothing else now: an idle-class writer on a busy
  // machine would run only when a CPU idles (a recording of /bin/true took
  // 1.2 s at load 10, finish() waiting for it).
  if (pending_.load(std::memory_order_acquire) != 0) lift_idle_locked();
  // The tracee is stopped (or gone) while the caller waits: its CPU is free.
  use_all_cpus();
  done_cv_.wait(lock, [&] { return pending_.load(std::memory_order_acquire) == 0; });
  return error_ ? Status(*error_) : ok_status();
}

Result<CheckpointId> CheckpointWriter::add_now(const store::CheckpointInput& input, const std::string& reason) {
  TRY(wait());
  Result<CheckpointId> k = writer_->add_checkpoint(input, reason);
  if (!k.ok()) return fail(k.error()).take_error();
  std::lock_guard<std::mutex> lock(mu_);
  stats_.stored++;
  return k;
}

Status CheckpointWriter::finish(const std::map<std::string, uint64_t>& summary) {
  TRY(wait());
  // Nothing is queued after the end: the thread exits while the recording
  // is finished here, and the destructor's join does not wait for it to
  // get a CPU.
  tell_thread_to_quit();
  for (const auto& [key, value] : summary)
    if (Status put = store::put_summary(*writer_, key, value); !put.ok()) return fail(put.error());
  Status st = writer_->finish();
  if (!st.ok()) return fail(st.error());
  return ok_status();
}

int CheckpointWriter::thread_policy() const {
  const pid_t tid = thread_tid_.load();
  return tid ? sched_getscheduler(tid) : -1;
}

CheckpointWriter::Stats CheckpointWriter::stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stats_;
}

}  // namespace slsdbg::recorder
