#include "recorder/record/record_session.h"

#include <signal.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cassert>
#include <cerrno>
#include <cstring>
#include <deque>
#include <future>
#include <map>
#include <memory>
#include <optional>

#include "common/clock.h"
#include "common/log.h"
#include "common/signal_name.h"
#include "process/cpu.h"
#include "process/cpuid_cache.h"
#include "process/inject.h"
#include "process/proc_identity.h"
#include "process/proc_signals.h"
#include "process/queued_signals.h"
#include "process/remote_memory.h"
#include "process/seccomp_filter.h"
#include "process/signal_frame.h"
#include "process/signal_policy.h"
#include "process/spawn.h"
#include "process/syscallbuf_stub.h"
#include "process/syscalls/model.h"
#include "process/task_clock.h"
#include "process/vdso_patch.h"
#include "process/wait_status.h"
#include "recorder/record/checkpoint_writer.h"
#include "recorder/record/children.h"
#include "recorder/record/capture_activity.h"
#include "recorder/record/defer_policy.h"
#include "recorder/record/exec_follow.h"
#include "recorder/record/file_keeper.h"
#include "recorder/record/interval_policy.h"
#include "recorder/record/member.h"
#include "recorder/record/rdtsc.h"
#include "recorder/record/shared_turn.h"
#include "recorder/record/signal_pacing.h"
#include "recorder/record/stop_census.h"
#include "recorder/record/syscallbuf.h"
#include "recorder/record/syscalls/fast_write.h"
#include "recorder/record/thread_set.h"
#include "recorder/record/alt_stacks.h"
#include "recorder/record/tick.h"
#include "store/recording.h"
#include "store/recording_early.h"
#include "store/summary.h"

extern char** environ;

namespace slsdbg::recorder {

using process::Dispositions;
using process::OutputRegion;
using process::RestartOutcome;
using process::SignalTiming;
using process::SyscallCall;
using process::SyscallClass;
using process::SyscallModel;
using process::VmReader;
using process::choose_record_cpu;
using process::classify_signal;
using process::drop_deliverable_pending;
using process::encode_cpuid;
using process::find_syscall_model;
using process::install_record_filter;
using process::kernel_discards;
using process::patch_vdso_time_functions;
using process::pin_to_cpu;
using process::cpuid_cache_dir;
using process::cpuid_leaves_of_pinned_cpu;
using process::settle_interrupted_syscall;
using process::syscall_name;

namespace {

// Ordered by precedence: a stronger reason wins when two coincide.
// Patch: the syscall buffer patched libc's sites (forced like Forced; named
// apart so that tools and tests can tell it from an unmodelled call's).
enum class Reason { None = 0, Tick, Signal, Patch, Forced, Exec, Exit, Crash };

const char* reason_name(Reason r) {
  switch (r) {
    case Reason::Tick: return "tick";
    case Reason::Signal: return "signal";
    case Reason::Patch: return "patch";
    case Reason::Forced: return "forced";
    case Reason::Exec: return "exec";
    case Reason::Exit: return "exit";
    case Reason::Crash: return "crash";
    case Reason::None: break;
  }
  return "none";
}

// Ctrl-C, SIGTERM or SIGHUP to the recorder: end with a final checkpoint.
// The handler only notes the signal and makes the tick come due, which
// interrupts the recorder's waitpid; the loop does the rest.
volatile sig_atomic_t g_stop_signal = 0;
volatile pid_t g_tick_owner = 0;

void on_stop_signal(int signo) {
  if (g_stop_signal != 0) {
    // A second one: the user insists; die of it at once.
    signal(signo, SIG_DFL);
    raise(signo);
    return;
  }
  g_stop_signal = signo;
  if (g_tick_owner != 0) Tick::fire_now(g_tick_owner);
}

void catch_stop_signals() {
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sa.sa_flags = SA_RESTART;
  sigemptyset(&sa.sa_mask);
  for (int signo : {SIGINT, SIGTERM, SIGHUP}) sigaction(signo, &sa, nullptr);
}

std::vector<uint8_t> siginfo_bytes(const siginfo_t& si) {
  const auto* p = reinterpret_cast<const uint8_t*>(&si);
  return {p, p + sizeof si};
}

// Syscalls that a PTRACE_INTERRUPT turns into -ERESTARTSYS/-ERESTARTNOHAND/
// -ERESTARTNOINTR while they block, which the recorder can rewind exactly.
// Others (relative sleeps, poll with a timeout: restart blocks; epoll_wait:
// plain EINTR) are left alone and the tick is taken when they return.
bool interruptible_while_blocked(long nr, const std::array<uint64_t, 6>& args) {
  switch (nr) {
    case SYS_read: case SYS_readv: case SYS_pread64: case SYS_preadv:
    case SYS_write: case SYS_writev: case SYS_pwrite64: case SYS_pwritev:
    case SYS_wait4: case SYS_waitid: case SYS_pause: case SYS_openat:
    case SYS_accept: case SYS_accept4: case SYS_recvfrom: case SYS_recvmsg:
    case SYS_sendto: case SYS_sendmsg: case SYS_flock:
      return true;
    case SYS_futex:
      return args[3] == 0;  // no timeout
    default:
      return false;
  }
}

std::array<uint64_t, 6> syscall_args(const user_regs_struct& r) {
  return {r.rdi, r.rsi, r.rdx, r.r10, r.r8, r.r9};
}

Dispositions initial_dispositions(pid_t pid) {
  Dispositions d;
  const std::optional<std::string> field = process::read_status_field(pid, "SigIgn");
  if (!field) return d;
  const uint64_t ignored = std::stoull(*field, nullptr, 16);
  for (int s = 1; s <= 64; s++)
    if (ignored & (1ull << (s - 1))) d.set(s, {1, 0});
  return d;
}

class RecordSession {
 public:
  // `group`: children are recorded as its members; `member`: this session
  // records such a child (member.h) instead of spawning the program.
  RecordSession(const RecordOptions& o, MemberGroup* group, const MemberStart* member = nullptr)
      : opts_(o), interval_(o.interval_ns, o.max_interval_ns ? o.max_interval_ns : o.interval_ns), group_(group),
        member_(member) {}
  Result<RecordOutcome> run();

 private:
  Status start();
  Status start_member();
  Status start_store(store::RecordingMeta meta, const cpu_set_t& all_cpus);
  // The root's store is created from before the spawn (store/recording_early.h):
  // open_store() starts it with what is known then, start_store() sends the rest.
  using LateMeta = std::promise<std::optional<store::RecordingMeta>>;
  Status open_store(const store::RecordingMeta& known, const cpu_set_t& all_cpus, bool awaiting_meta);
  void abandon_store();  // the program never started: no recording
  CaptureOptions capture_options() const {
    return CaptureOptions{.activity_reported = true, .keep_file = file_keeper(opts_.out_dir, opts_.pool_dir)};
  }
  // The buffer's stub serves the vDSO's clock reads too; replay patches
  // the same way in a recording that stores the stub's version.
  process::VdsoRoute vdso_route() const {
    return opts_.syscall_buffer ? process::VdsoRoute::ThroughSyscallBuffer : process::VdsoRoute::Syscall;
  }
  Status loop();
  Status on_seccomp();
  Status on_syscall_exit();
  Status on_signal(int signo);
  Status on_interrupt();
  Status on_exec();
  Status settle_interrupted(int signo);
  Status on_tick();
  // Counts `ls` shows without reading the event log (store summary).
  std::map<std::string, uint64_t> summary() const {
    return {{kChildrenSummaryKey, children_ ? children_->started().size() : 0},
            {kMaxIntervalSummaryKey, interval_.max_ns()},
            {kLongestIntervalSummaryKey, interval_.longest_ns()},
            {kStretchedTicksSummaryKey, interval_.stretched_ticks()}};
  }
  Status checkpoint(Reason reason, bool restarted_syscall, const siginfo_t* fatal = nullptr);
  bool kills_by_default(int signo, const siginfo_t& si) const;
  bool kills_when_delivered(const siginfo_t& si) const;
  bool may_pace(const siginfo_t& si, const user_regs_struct& r) const;
  std::optional<bool> blocked(int signo) const;  // nullopt: the mask could not be read
  // Logs the current syscall as returning `result` (no memory outputs).
  Status log_syscall_result(uint64_t pc, int64_t result);
  // Logs that replay must cross the next point by restore, not execution.
  Status log_forced_checkpoint(uint64_t pc);
  CopyTiming copy_timing(Reason reason);
  // Hands a deferred checkpoint to the store once its copy is confirmed, or
  // drops it (torn). Called before anything else at every tracee stop, so no
  // event is logged between a checkpoint and its settling.
  Status settle_deferred(bool tracee_stopped);
  Status log_event(const store::Event& ev);
  // Logs the syscall buffer's entries (syscallbuf.h); `step_out` first at a
  // stop that takes a checkpoint.
  Status drain_syscall_buffer(bool step_out);
  // Resumes the thread being handled, or parks it while another runs.
  Status cont(int signo = 0, __ptrace_request request = PTRACE_CONT);
  // `program`: false where the caller knows the thread runs no program
  // code (its exit, a rewound call); else note_resume works it out.
  Status resume_now(int signo, __ptrace_request request, bool ask_interrupt = true, bool program = true);
  void note_resume(pid_t tid, __ptrace_request request, bool program);
  Status dispatch(int status);
  // record --threads (thread_set.h).
  bool multi() const { return threads_ && threads_->size() > 1; }
  // Whether the segment has threads as its log shows them (the last
  // checkpoint held several, or a ThreadSwitch was logged since): a
  // re-sent signal's frame gets its trapno set then, as the threaded
  // replay sets it (thread_check.cc).
  bool threads_in_segment() const { return threads_at_checkpoint_ > 1 || switched_in_segment_; }
  size_t threads_at_checkpoint_ = 1;
  bool switched_in_segment_ = false;
  void enter(pid_t tid);  // makes `tid` the thread being handled
  Status become_running(pid_t tid);
  Status schedule_next(pid_t after);
  Status go_into_kernel();
  Status stop_all();
  // Whether every call the threads wait in restarts as it was (no timeout
  // it would count again from the start): interruptible_while_blocked.
  bool waits_restart_exactly();
  Status enter_logged_handlers();
  Status flush_queued_signals();
  Status wait_until_parked(pid_t t);
  Status resume_to_signal_stop(pid_t t);
  Status take_resent_signals();
  Status checkpoint_all_in_kernel();
  Status on_thread_gone(pid_t tid);
  void store_cut_syscalls(store::ProcessState& st, const std::vector<pid_t>& tids);
  Status go_on_with_cut_call(pid_t tid);
  bool own_signal_pending(pid_t tid, const user_regs_struct& r);
  long call_going_on(long nr);
  Status resume_cut_threads();
  Status request_interrupt();
  Status rewind_before_syscall(user_regs_struct& regs);
  Status skip_with_result(user_regs_struct& regs, int64_t result);
  Result<user_regs_struct> regs();
  Status set_regs(const user_regs_struct& r);
  void kill_tracee();
  // The tracee's CPU time since the last event: replay's progress hint.
  void mark_progress();
  std::optional<uint64_t> cpu_since_progress();

  RecordOptions opts_;
  IntervalPolicy interval_;  // stretches the tick for programs that rewrite their memory
  MemberGroup* group_;
  const MemberStart* member_;
  pid_t cut_pid_ = -1;  // its seat in the group's cuts
  pid_t pid_ = -1;   // the thread being handled
  pid_t tgid_ = -1;  // the recorded process
  std::unique_ptr<process::Task> leader_task_;
  process::Task* task_ = nullptr;  // pid_'s
  std::optional<ThreadSet> threads_;
  std::map<pid_t, std::unique_ptr<process::Task>> thread_tasks_;
  process::Task& task_of(pid_t tid);
  AltStacks alt_stacks_;  // each thread's sigaltstack, for its checkpoints
  pid_t last_switch_ = -1;     // the thread the last ThreadSwitch event named
  bool stopping_all_ = false;  // inside stop_all(): every thread parks
  std::optional<process::TaskClock> clock_;
  std::optional<uint64_t> cpu_at_progress_;
  std::unique_ptr<CheckpointCapture> capture_;
  std::unique_ptr<CheckpointWriter> writer_;
  // The root's meta, for a store opened before the spawn; after writer_:
  // destroyed first, so a store still waiting for it gives up before the
  // writer's join.
  std::optional<LateMeta> late_meta_;
  bool meta_sent_ = false;
  struct Unsettled {
    CapturedCheckpoint checkpoint;
    std::string why;
    std::optional<uint64_t> cpu_at_progress_before;  // restored if it is dropped
  };
  std::optional<Unsettled> unsettled_;
  DeferPolicy defer_;  // backs off to copying in the stop while deferrals tear
  std::unique_ptr<Tick> tick_;
  std::unique_ptr<store::RecordingReader> verify_reader_;
  Dispositions dispositions_;
  FastWrite fast_write_;
  StopCensus census_;  // seccomp stops by syscall (stop_census.h)
  std::optional<SyscallBuf> syscall_buffer_;  // record --syscall-buffer
  std::optional<Children> children_;  // run unrecorded (children.h)
  std::unique_ptr<SharedTurn> shared_;  // memory shared with other members (shared_turn.h)
  // A vfork child before its execve (member.h): it runs in its waiting
  // parent's memory, whose dirty tracking is the parent's.
  bool in_parents_memory_ = false;
  bool keep_turn_ = false;  // the next checkpoint follows one the turn passed at

  enum class State { Running, InSyscall } state_ = State::Running;
  long cur_nr_ = -1;
  std::array<uint64_t, 6> cur_args_{};
  uint64_t cur_pc_ = 0;  // after the call's `syscall` (an execve's event keeps it: the new image has other pcs)
  Reason pending_ = Reason::None;
  bool interrupt_requested_ = false;
  bool exit_checkpoint_taken_ = false;
  bool clear_all_next_ = false;  // the next checkpoint follows an execve: nothing of the old image stays
  bool crash_checkpoint_taken_ = false;  // the fault re-executes after it: deliver then
  std::deque<siginfo_t> held_;     // async signals waiting for a checkpoint
  SignalPacing pacing_;            // ... and whether they wait for one taken anyway
  std::deque<pid_t> held_tids_;    // ... and the thread each came to
  bool restarted_for_checkpoint_ = false;  // the next checkpoint's syscall was rewound
  std::deque<siginfo_t> resending_;  // re-queued after it, awaiting delivery
  std::string refusal_;
  int stop_signal_ = 0;  // the signal that asked the recorder to stop
  bool in_restart_block_ = false;  // the tracee sits inside a sleep a signal interrupted
  bool done_ = false;

  uint64_t t0_ = 0;
  uint64_t stop_time_ = 0;
  uint64_t checkpoints_ = 0;
  uint64_t events_ = 0;
  RecordOutcome outcome_;
};

Result<user_regs_struct> RecordSession::regs() {
  user_regs_struct r;
  if (ptrace(PTRACE_GETREGS, pid_, nullptr, &r) != 0) return Error::from_errno("ptrace(PTRACE_GETREGS)");
  return r;
}

Status RecordSession::set_regs(const user_regs_struct& r) {
  if (ptrace(PTRACE_SETREGS, pid_, nullptr, &r) != 0) return Error::from_errno("ptrace(PTRACE_SETREGS)");
  return ok_status();
}

Status RecordSession::cont(int signo, __ptrace_request request) {
  // A signal handed over here is delivered; the buffer patches no site while a handler runs.
  if (signo != 0 && syscall_buffer_ && dispositions_.runs_handler(signo)) syscall_buffer_->on_handler_entry();
  if (multi() && pid_ != threads_->running()) {
    if (threads_->running() != -1 || stopping_all_) {
      ThreadCtx& c = threads_->at(pid_);
      c.where = ThreadCtx::Where::Parked;
      c.resume_request = request;
      c.resume_signo = signo;
      return ok_status();
    }
    TRY(become_running(pid_));  // nobody else runs
  }
  return resume_now(signo, request);
}

Status RecordSession::resume_now(int signo, __ptrace_request request, bool ask_interrupt, bool program) {
  // Waiting for its turn (shared_turn.h), the program may run only from a
  // checkpoint taken first, at which it takes the turn back.
  if (shared_ && shared_->needs_turn() && request != PTRACE_SYSCALL) pending_ = std::max(pending_, Reason::Tick);
  // Any ptrace stop clears a pending PTRACE_INTERRUPT (JOBCTL_TRAP_STOP), so
  // while a checkpoint is wanted every resumption asks again.
  if (pending_ != Reason::None && ask_interrupt) TRY(request_interrupt());
  // ESRCH: the tracee died under us (SIGKILL); waitpid reports it next.
  if (ptrace(request, pid_, nullptr, reinterpret_cast<void*>(static_cast<long>(signo))) != 0 && errno != ESRCH)
    return Error::from_errno(request == PTRACE_SYSCALL ? "ptrace(PTRACE_SYSCALL)" : "ptrace(PTRACE_CONT)");
  note_resume(pid_, request, program);
  return ok_status();
}

Status RecordSession::request_interrupt() {
  if (interrupt_requested_) return ok_status();
  if (ptrace(PTRACE_INTERRUPT, pid_, nullptr, nullptr) != 0 && errno != ESRCH)
    return Error::from_errno("ptrace(PTRACE_INTERRUPT)");
  interrupt_requested_ = true;
  return ok_status();
}

Status RecordSession::log_event(const store::Event& ev) {
  TRY_CTX(writer_->append_event(ev), "writing the event log");
  events_++;
  mark_progress();
  return ok_status();
}

Status RecordSession::drain_syscall_buffer(bool step_out) {
  if (step_out) {
    std::deque<siginfo_t> intercepted;
    TRY_CTX(syscall_buffer_->step_out(pid_, intercepted), "stepping out of the syscall buffer");
    // Held like any asynchronous signal: re-sent after this checkpoint, to
    // this thread (held_tids_ runs beside held_).
    for (const siginfo_t& si : intercepted) {
      bool merged = false;  // a standard signal is pending at most once per thread (as in on_signal)
      for (size_t i = 0; i < held_.size(); i++)
        merged |= si.si_signo < SIGRTMIN && held_[i].si_signo == si.si_signo && held_tids_[i] == pid_;
      if (!merged) {
        held_.push_back(si);
        held_tids_.push_back(pid_);
      }
      pending_ = std::max(pending_, Reason::Signal);
    }
  }
  // The entries are the calls of the thread that ran since the last drain:
  // the running one, stopped here or still running while another thread's
  // stop is handled (then the buffer is read but not reset).
  const pid_t running = multi() ? threads_->running() : pid_;
  const pid_t ran = running == -1 ? pid_ : running;
  const bool may_reset = running == -1 || running == pid_;
  // Not log_event: its CPU-time read per event would cost a syscall each.
  SysbufEntries entries = TRY_CTX(syscall_buffer_->take(ran, may_reset, [this](const SysbufEntryHead& e) {
                                    fast_write_.before_syscall(e.nr, e.args);  // a buffered close or openat
                                  }),
                                  "draining the syscall buffer");
  if (entries.count() != 0) {
    events_ += entries.count();
    const uint64_t bytes = entries.bytes();
    // Decoded and encoded on the writer's thread, not on the tracee's CPU.
    TRY_CTX(writer_->append_events([taken = std::move(entries)](const CheckpointWriter::EventAppender& append) {
              return taken.each(append);
            },
                                   bytes),
            "writing the event log");
    // File offsets moved (buffered calls change nothing else the capture
    // reads); and the CPU time since the last event is unknown (the entries
    // were logged late), so the checkpoint gets no hint.
    capture_->note_fd_activity();
    cpu_at_progress_.reset();
  }
  return ok_status();
}

void RecordSession::mark_progress() {
  if (!clock_) return;
  Result<uint64_t> ns = clock_->read();
  cpu_at_progress_ = ns.ok() ? std::optional<uint64_t>(*ns) : std::nullopt;
}

std::optional<uint64_t> RecordSession::cpu_since_progress() {
  if (!clock_ || !cpu_at_progress_) return std::nullopt;
  Result<uint64_t> ns = clock_->read();
  if (!ns.ok() || *ns < *cpu_at_progress_) return std::nullopt;
  return *ns - *cpu_at_progress_;
}

void RecordSession::kill_tracee() {
  if (tgid_ <= 0) return;
  kill(tgid_, SIGKILL);
  int st;
  if (!multi()) {
    while (waitpid(tgid_, &st, __WALL) == tgid_ && !WIFEXITED(st) && !WIFSIGNALED(st)) {
    }
  } else {
    // The leader's death is reported after its other threads are reaped.
    for (;;) {
      const pid_t got = waitpid(-1, &st, __WALL | __WNOTHREAD);
      if (got < 0 && errno == EINTR) continue;
      if (got < 0 || (got == tgid_ && (WIFEXITED(st) || WIFSIGNALED(st)))) break;
      if (!threads_->has(got) && children_) (void)children_->on_stop(got, st);
    }
  }
  pid_ = tgid_ = -1;
}

Status RecordSession::start() {
  cpu_set_t all_cpus;
  if (member_) return start_member();
  if (sched_getaffinity(0, sizeof all_cpus, &all_cpus) != 0) return Error::from_errno("sched_getaffinity");
  const int cpu = choose_record_cpu();
  TRY(pin_to_cpu(cpu));
  // A bad output directory is an error before the program runs.
  TRY(store::RecordingWriter::claim_dir(opts_.out_dir));
  process::SpawnOptions so;
  so.argv = opts_.argv;
  for (char** e = environ; *e; e++) so.env.emplace_back(*e);
  so.in_child_before_exec = [cpu, syscall_buffer = opts_.syscall_buffer]() -> Status {
    TRY(pin_to_cpu(cpu));
    if (prctl(PR_SET_TSC, PR_TSC_SIGSEGV, 0, 0, 0) != 0) return Error::from_errno("prctl(PR_SET_TSC)");
    return install_record_filter(syscall_buffer);
  };
  store::RecordingMeta meta;
  meta.program = opts_.argv[0];
  meta.args = opts_.argv;
  meta.env = so.env;
  char cwd[4096];
  if (getcwd(cwd, sizeof cwd)) meta.cwd = cwd;
  meta.parent_pid = getpid();
  meta.origin = "spawn";
  // The store's creation (~1.5 ms: directories, extent file, SQLite schema)
  // overlaps the spawn and the set-up below; its meta rows wait for the
  // pid, the tracker and the CPUID (start_store).
  TRY(open_store(meta, all_cpus, /*awaiting_meta=*/true));
  const uint64_t t_spawn = monotonic_ns();
  leader_task_ = std::make_unique<process::Task>(TRY(process::spawn_traced(so)));
  task_ = leader_task_.get();
  alt_stacks_.none(task_->tid().value);  // a fresh exec
  pid_ = tgid_ = task_->tid().value;
  threads_.emplace(tgid_);
  last_switch_ = tgid_;
  children_.emplace(pid_, group_, &dispositions_);
  if (group_) shared_ = std::make_unique<SharedTurn>(group_->baton(), tgid_);
  clock_ = process::TaskClock::open(pid_);
  // Ctrl-\ reaches the program through the terminal; the recorder stays to
  // record what the program does with it. Ctrl-C (which the program gets
  // too: it is held until the final checkpoint), SIGTERM and SIGHUP end the
  // recording with a final checkpoint. (Set after the spawn: an ignored
  // signal would be inherited across execve.)
  signal(SIGQUIT, SIG_IGN);
  catch_stop_signals();
  stop_time_ = monotonic_ns();
  t0_ = stop_time_;

  TRY_CTX(process::install_injection_page(*task_), "installing the injection page");
  const uint64_t t_page = monotonic_ns();
  if (opts_.syscall_buffer) syscall_buffer_.emplace(TRY(SyscallBuf::arm(pid_)));
  const uint64_t t_buffer = monotonic_ns();
  const int patched = TRY(patch_vdso_time_functions(pid_, vdso_route()));
  const uint64_t t_vdso = monotonic_ns();
  capture_ = TRY_CTX(CheckpointCapture::create(pid_, opts_.tracker, capture_options()),
                     "setting up checkpoint capture");
  const uint64_t t_capture = monotonic_ns();
  dispositions_ = initial_dispositions(pid_);
  fast_write_ = FastWrite::for_process(pid_);
  // Checkpoint 0's stop starts at the spawn: where its set-up time goes.
  SLSDBG_DEBUG("record",
               "start: spawn %.0f us, injection page %.0f us, syscall buffer %.0f us, vDSO %.0f us (%d entry "
               "points), capture set-up %.0f us, dispositions %.0f us",
               double(stop_time_ - t_spawn) / 1e3, double(t_page - stop_time_) / 1e3, double(t_buffer - t_page) / 1e3,
               double(t_vdso - t_buffer) / 1e3, patched, double(t_capture - t_vdso) / 1e3,
               double(monotonic_ns() - t_capture) / 1e3);

  meta.pid = pid_;
  return start_store(meta, all_cpus);
}

// A child handed over by its parent's session (member.h).
Status RecordSession::start_member() {
  if (Status claimed = store::RecordingWriter::claim_dir(opts_.out_dir); !claimed.ok()) {
    (void)release_parked(*member_);  // it runs on unrecorded, not parked for ever
    return claimed;
  }
  leader_task_ = std::make_unique<process::Task>(TRY(adopt_member(*member_)));
  task_ = leader_task_.get();
  pid_ = tgid_ = task_->tid().value;
  threads_.emplace(tgid_);
  last_switch_ = tgid_;
  children_.emplace(pid_, group_, &dispositions_);
  clock_ = process::TaskClock::open(pid_);
  stop_time_ = monotonic_ns();
  t0_ = stop_time_;
  TRY(prepare_member_image(*task_, member_->origin, vdso_route()));
  in_parents_memory_ = member_->origin == MemberOrigin::Vfork;
  if (!in_parents_memory_) {
    // A forked child of a process with shared memory has it too: it waits
    // for its turn before its checkpoint 0. (A vfork child's parent waits in
    // the kernel, whatever turn it holds: the child takes part from its exec.)
    shared_ = std::make_unique<SharedTurn>(group_->baton(), tgid_);
    TRY(shared_->start());
    // A forked child runs its parent's patched libc: it owns and drains the
    // buffer it inherited; an exec'd one got a fresh stub above. A vfork
    // child's calls take the stub's trapped path: its parent disabled the
    // stub across the call, and its entries are the parent's.
    if (opts_.syscall_buffer)
      syscall_buffer_.emplace(TRY(member_->origin == MemberOrigin::Fork ? SyscallBuf::adopt_forked(pid_)
                                                                         : SyscallBuf::arm(pid_)));
  }
  // In the parent's memory the capture only reads: hashing pages leaves the
  // parent's userfaultfd write-protection, and so its next checkpoint, as
  // they were.
  capture_ = TRY_CTX(
      CheckpointCapture::create(pid_, in_parents_memory_ ? TrackerChoice::PageHash : opts_.tracker, capture_options()),
      "setting up checkpoint capture");
  dispositions_ = member_->origin != MemberOrigin::Exec ? member_->dispositions : initial_dispositions(pid_);
  fast_write_ = FastWrite::for_process(pid_);
  return start_store(member_meta(pid_, member_->parent, member_->origin), member_->writer_cpus);
}

Status RecordSession::start_store(store::RecordingMeta meta, const cpu_set_t& all_cpus) {
  meta.cpuid = encode_cpuid(cpuid_leaves_of_pinned_cpu(cpuid_cache_dir()));
  meta.tracker = capture_->tracker_name();
  meta.interval_ns = opts_.interval_ns;
  meta.created_unix_ns = static_cast<int64_t>(time(nullptr)) * 1'000'000'000;
  // Marked by the store once a thread runs (its first ThreadSwitch): a
  // program that starts none stays a single-thread recording.
  meta.threads = false;
  if (late_meta_) {  // the store was opened before the spawn
    late_meta_->set_value(meta);
    meta_sent_ = true;
  } else {
    TRY(open_store(meta, all_cpus, /*awaiting_meta=*/false));
  }
  outcome_.tracker = meta.tracker;

  TRY(checkpoint(Reason::None, false));  // checkpoint 0, "start"
  tick_ = TRY(Tick::start(opts_.interval_ns));
  if (!member_) g_tick_owner = tick_->owner();
  if (group_ && !in_parents_memory_) group_->cuts().join(cut_pid_ = tgid_, tick_->owner());
  // A torn deferred copy: settle it and take the checkpoint again now rather
  // than a whole interval later.
  capture_->on_torn_copy([owner = tick_->owner()] { Tick::fire_now(owner); });
  return ok_status();
}

Status RecordSession::open_store(const store::RecordingMeta& known, const cpu_set_t& all_cpus, bool awaiting_meta) {
  // The store's setup (catalog, files) runs on the writer's thread while the
  // program starts.
  // Synced to disk once a second and at the end, not at every checkpoint:
  // a killed recorder still leaves every committed checkpoint, and a short
  // program does not wait for a dozen fsyncs (docs/performance.md `## record`).
  store::WriterOptions wo;
  wo.sync = store::WriterOptions::Sync::Deferred;
  wo.durable_finish = opts_.durable;
  store::MetaCompleter complete;
  if (awaiting_meta) {
    late_meta_.emplace();
    complete = [late = late_meta_->get_future().share()](store::RecordingMeta& meta) -> Status {
      std::optional<store::RecordingMeta> full;
      try {
        full = late.get();
      } catch (const std::future_error&) {  // the session ended without sending it
      }
      if (!full) return Error::msg("the program did not start");
      meta = std::move(*full);
      return ok_status();
    };
  }
  writer_ = TRY(CheckpointWriter::start_opening(
      [dir = opts_.out_dir, known, wo, complete, sysbuf = opts_.syscall_buffer]()
          -> Result<std::unique_ptr<store::RecordingWriter>> {
        auto w = TRY(store::create_awaiting_meta(dir, known, wo, complete));
        // Durable with checkpoint 0: replay must run the same stub.
        if (sysbuf) TRY(store::put_summary(*w, process::kSysbufStubSummaryKey, process::kSysbufStubVersion));
        return w;
      },
      all_cpus));
  return ok_status();
}

void RecordSession::abandon_store() {
  late_meta_->set_value(std::nullopt);
  writer_.reset();  // its creation fails on that
  late_meta_.reset();
  (void)store::discard_unstarted_recording(opts_.out_dir);
}

Status RecordSession::checkpoint(Reason reason, bool restarted_syscall, const siginfo_t* fatal) {
  // Before capture, whose injected code runs in the tracee.
  const std::optional<uint64_t> cpu_since_event = cpu_since_progress();
  const CopyTiming timing = copy_timing(reason);
  TRY(stop_all());
  const std::vector<pid_t> tids = threads_->tids();
  CapturedCheckpoint captured =
      TRY_CTX(capture_->capture_checkpoint(tids, timing), "capturing checkpoint " + std::to_string(checkpoints_));
  if (shared_) TRY_CTX(shared_->amend(captured), "adding shared memory to checkpoint " + std::to_string(checkpoints_));
  store::CheckpointInput& input = captured.input;
  // A signal arriving during the capture comes back to us as a stop, and is logged then.
  drop_deliverable_pending(input.state);
  for (size_t i = 0; i < tids.size() && i < input.state.threads.size(); i++)
    if (tids[i] == pid_ && restarted_syscall) input.state.threads[i].restarted_syscall = true;
  if (multi()) store_cut_syscalls(input.state, tids);
  for (size_t i = 0; i < tids.size() && i < input.state.threads.size(); i++) {
    store::ThreadState& t = input.state.threads[i];
    t.clear_child_tid = threads_->clear_child_tid(tids[i]);
    const AltStack alt = TRY_CTX(alt_stacks_.of(task_of(tids[i])), "capturing checkpoint " + std::to_string(checkpoints_));
    t.altstack_sp = alt.sp;
    t.altstack_size = alt.size;
    t.altstack_flags = alt.flags;
  }
  // Replay resumes this one first; -1 (all in a syscall) is stored as 0.
  if (opts_.threads) input.state.running_tid = std::max(threads_->running(), pid_t(0));
  // The next segment starts here: its tick switch is logged after this.
  threads_at_checkpoint_ = tids.size();
  switched_in_segment_ = false;
  if (std::exchange(clear_all_next_, false)) input.cleared = {{0, 1ull << 47}};
  input.time_ns = stop_time_ - t0_;
  input.cpu_since_event_ns = cpu_since_event;
  std::string why = reason == Reason::None ? "start" : reason_name(reason);
  // A held signal that kills when delivered (abort's SIGABRT, a SIGTERM from
  // outside): this checkpoint, right before its delivery, is the crash.
  if (reason == Reason::Signal && !fatal && held_.size() == 1 && kills_when_delivered(held_.front())) {
    fatal = &held_.front();
    outcome_.crash = *fatal;
    why = "crash";
  }
  if (fatal) input.state.fatal_siginfo = siginfo_bytes(*fatal);

  // A member with shared memory gives its turn up here (shared_turn.h),
  // and waits in a group cut without it. When others wrote meanwhile the
  // held signals wait for the second checkpoint taken below.
  const bool pass_turn = shared_ && shared_->active() && reason != Reason::None && reason < Reason::Exec &&
                         !std::exchange(keep_turn_, false);
  bool others_wrote = false;
  if (pass_turn) {
    TRY(shared_->pass_at_checkpoint());
    if (group_ && !captured.deferred) group_->cuts().arrive(tgid_, checkpoints_);
    others_wrote = TRY(shared_->take_back());
  }
  // Held signals go back in the queue now; they are handed over with their
  // original siginfo at the delivery stop right after the tracee resumes.
  for (size_t i = 0; i < held_.size() && !others_wrote; i++) {
    syscall(SYS_tgkill, tgid_, i < held_tids_.size() ? held_tids_[i] : tgid_, held_[i].si_signo);
    resending_.push_back(held_[i]);
  }
  if (!others_wrote) {
    held_.clear();
    held_tids_.clear();
  }

  CheckpointId k;
  if (opts_.verify == VerifyMode::EveryCheckpoint) {
    input.stop_ns = monotonic_ns() - stop_time_;
    k = TRY_CTX(writer_->add_now(input, why), "storing checkpoint " + std::to_string(checkpoints_));
    if (!verify_reader_)
      verify_reader_ = TRY_CTX(store::RecordingReader::open(opts_.out_dir), "--verify: opening the recording");
    else
      TRY_CTX(verify_reader_->refresh(), "--verify: re-reading the recording");
    TRY_CTX(capture_->verify(*verify_reader_, k), "--verify");
  } else {
    input.stop_ns = monotonic_ns() - stop_time_;
  }
  if (reason == Reason::Exit && !refusal_.empty()) {
    // Refused (fork, threads, exec) or stopped: the recording ends at this
    // checkpoint. A stop inside a sleep that the terminal's signal
    // interrupted (-ERESTART_RESTARTBLOCK) is a state replay cannot reach by
    // execution (it emulates the sleep): then the last checkpoint taken is
    // the end, like after a kill -9 (a log without an exit).
    const bool unreachable = stop_signal_ != 0 && in_restart_block_;
    if (opts_.verify == VerifyMode::Off && !unreachable)
      TRY_CTX(writer_->add_now(input, why), "storing checkpoint " + std::to_string(checkpoints_));
    if (!unreachable) checkpoints_++;
    kill_tracee();
    if (!unreachable) {
      store::Event ev;
      ev.kind = store::EventKind::Exit;
      ev.signo = SIGKILL;
      TRY(log_event(ev));
    }
    TRY_CTX(writer_->finish(summary()), "finishing the recording");
    outcome_.end = stop_signal_ != 0 ? RecordOutcome::End::Stopped : RecordOutcome::End::Refused;
    outcome_.signo = stop_signal_;
    outcome_.refusal = refusal_;
    done_ = true;
    return ok_status();
  }
  if (reason == Reason::Exit || reason == Reason::Crash) exit_checkpoint_taken_ = true;
  in_restart_block_ = false;  // the held signal is delivered after this checkpoint
  const std::optional<uint64_t> cpu_at_progress_before = cpu_at_progress_;
  mark_progress();  // the next segment starts here
  if (pacing_.waiting() && tick_) tick_->set_interval(interval_.interval_ns());  // back from the wait's
  pacing_.checkpoint_done(cpu_at_progress_, monotonic_ns() - stop_time_);
  const uint64_t turn_wait = pass_turn ? shared_->last_wait_ns() : 0;
  const CheckpointCost cost{input.stop_ns - std::min(turn_wait, input.stop_ns), capture_->last_stats().pages,
                            capture_->last_stats().rewritten_pages};
  // Handed to the writer before the switch below logs its ThreadSwitch,
  // which belongs to the next segment.
  SLSDBG_DEBUG("record", "checkpoint %llu: %s, stop %.0f us, %zu pages now, %llu deferred",
               static_cast<unsigned long long>(checkpoints_), captured.deferred ? "deferred" : "in stop",
               double(input.stop_ns) / 1e3, input.dirty.size(),
               static_cast<unsigned long long>(capture_->last_stats().deferred_pages));
  // In a group cut: the program waits here, stopped, for the other members.
  if (group_ && !captured.deferred && !pass_turn) group_->cuts().arrive(tgid_, checkpoints_);
  if (captured.deferred) {
    outcome_.deferred_checkpoints++;
    unsettled_ = Unsettled{std::move(captured), why, cpu_at_progress_before};
  } else if (opts_.verify == VerifyMode::Off) {
    // Stored while the program runs; an error surfaces at a later event or checkpoint.
    TRY_CTX(writer_->add_in_background(std::move(input), why, std::move(captured.pages)),
            "storing checkpoint " + std::to_string(checkpoints_));
  }
  if (others_wrote) {
    // The program goes on from a second checkpoint holding their writes;
    // replay crosses the one-event segment between by restore.
    checkpoints_++;
    TRY(log_forced_checkpoint(TRY(regs()).rip));
    keep_turn_ = true;
    return checkpoint(std::max(reason, Reason::Forced), restarted_syscall);
  }
  if (reason != Reason::None) {
    TRY(take_resent_signals());
    TRY(resume_cut_threads());
    if (multi() && threads_->running() != pid_) {
      // Taken while every thread waited in the kernel: the first parked
      // one (if a call finished meanwhile) runs.
      if (threads_->running() == -1) TRY(schedule_next(0));
    } else if (multi() && reason == Reason::Tick && threads_->next_parked(pid_)) {
      // The tick is a switch: the running thread waits its turn.
      ThreadCtx& c = threads_->at(pid_);
      c.where = ThreadCtx::Where::Parked;
      c.resume_request = PTRACE_CONT;
      c.resume_signo = 0;
      threads_->set_running(-1);
      TRY(schedule_next(pid_));
    } else {
      TRY(cont());
    }
  }
  checkpoints_++;
  if (reason == Reason::Tick && tick_) {
    tick_->set_interval(interval_.on_tick_checkpoint(cost));
    SLSDBG_DEBUG("record", "next tick in %.0f ms (%llu of %llu pages written recently)", double(interval_.interval_ns()) / 1e6,
                 static_cast<unsigned long long>(cost.rewritten), static_cast<unsigned long long>(cost.pages));
    outcome_.longest_interval_ns = interval_.longest_ns();
    outcome_.stretched_ticks = interval_.stretched_ticks();
  }
  if (tick_) tick_->rearm();
  return ok_status();
}

// Only ticks, the one kind of checkpoint that may be dropped: it delivers
// nothing (no held signal goes out after it), so the program runs the same
// with or without it, and the next checkpoint takes its pages. After a
// dropped one DeferPolicy copies the next ticks in the stop (defer_policy.h).
CopyTiming RecordSession::copy_timing(Reason reason) {
  // Not with threads: the tick's switch is logged right after the
  // checkpoint, which a torn deferred copy would drop (a switch with no
  // checkpoint: not replayable).
  const bool may_defer = opts_.defer_copy && reason == Reason::Tick && held_.empty() && !multi() &&
                         opts_.verify == VerifyMode::Off &&
                         !(group_ && group_->cuts().pending(tgid_)) && !(shared_ && shared_->active()) &&
                         defer_.defer_next_tick(interval_.interval_ns() > interval_.base_ns());
  outcome_.backed_off_ticks = defer_.backed_off_ticks();
  return may_defer ? CopyTiming::Deferred : CopyTiming::InStop;
}

Status RecordSession::settle_deferred(bool tracee_stopped) {
  if (!unsettled_) return ok_status();
  Unsettled u = std::move(*unsettled_);
  unsettled_.reset();
  const uint64_t t = monotonic_ns();
  const bool exact = TRY_CTX(capture_->settle(u.checkpoint), "copying checkpoint pages");
  if (!exact) {
    // As if the tick had not come: its segment joins the previous one.
    checkpoints_--;
    outcome_.torn_checkpoints++;
    defer_.on_torn();
    cpu_at_progress_ = u.cpu_at_progress_before;
    SLSDBG_DEBUG("record", "tick checkpoint dropped: a page was written before its deferred copy");
    return ok_status();
  }
  defer_.on_held();
  // A tracee that stopped before the copy was done waited for it.
  if (tracee_stopped) u.checkpoint.input.stop_ns += monotonic_ns() - t;
  TRY_CTX(writer_->add_in_background(std::move(u.checkpoint.input), u.why, std::move(u.checkpoint.pages)),
          "storing checkpoint");
  return ok_status();
}

// At a seccomp stop: skip the syscall and rewind so it is issued again after
// the checkpoint (pc back over `syscall`, rax = its number).
Status RecordSession::rewind_before_syscall(user_regs_struct& r) {
  const uint64_t nr = r.orig_rax;
  r.orig_rax = static_cast<uint64_t>(-1);
  r.rax = nr;
  r.rip -= 2;
  TRY(set_regs(r));
  state_ = State::Running;
  return cont();
}

Status RecordSession::on_seccomp() {
  // Every syscall of the tracee stops here first, fast writes and skipped ones included.
  user_regs_struct r = TRY(regs());
  const long nr = call_going_on(static_cast<long>(r.orig_rax));
  if (!leaves_capture_state_alone(nr)) capture_->note_tracee_activity();
  census_.note(nr);
  if (exit_checkpoint_taken_ && (nr == SYS_exit_group || nr == SYS_exit)) {
    pending_ = Reason::None;  // nothing after the exit checkpoint but the exit
    // Our duplicates must not outlive the program's fds (flock locks, the
    // last close's inotify event).
    fast_write_.forget_all();
    return cont();
  }
  if (threads_->has(pid_)) threads_->at(pid_).cut_syscall = false;
  const bool other = multi() && pid_ != threads_->running();
  if (other && stopping_all_) {
    // Going back into its syscall while a checkpoint stops every thread:
    // skipped and rewound, it takes a ptrace trap before running anything,
    // a stop injected code can use (a seccomp stop with rewound registers
    // cannot), and it is stored as just before the call.
    threads_->at(pid_).cut_wait.put_back(nr, r);
    r.orig_rax = static_cast<uint64_t>(-1);
    r.rax = static_cast<uint64_t>(nr);
    r.rip -= 2;
    TRY(set_regs(r));
    state_ = State::Running;
    threads_->at(pid_).cut_syscall = true;
    if (ptrace(PTRACE_INTERRUPT, pid_, nullptr, nullptr) != 0 && errno != ESRCH)
      return Error::from_errno("ptrace(PTRACE_INTERRUPT)");
    return resume_now(0, PTRACE_CONT, false, false);
  }
  // A signal that waited (signal_pacing.h) goes on waiting through a call
  // that does not block, and comes during one the tick interrupts while it
  // blocks, like a signal sent then. Delivered before every call, it would
  // start the storm again there: a pause() or setitimer() it always
  // preceded, one checkpoint per alarm. Before other blocking calls it is.
  if (pacing_.waiting() && !other && may_block(nr, syscall_args(r)) && !interruptible_while_blocked(nr, syscall_args(r)))
    pending_ = std::max(pending_, Reason::Signal);
  if (!other && (pending_ != Reason::None || interrupt_requested_)) {
    if (pending_ == Reason::None) pending_ = Reason::Tick;
    return rewind_before_syscall(r);
  }
  if (multi() && (nr == SYS_execve || nr == SYS_execveat || (nr == SYS_exit && pid_ == tgid_))) {
    refusal_ = std::string(nr == SYS_exit ? "the main thread ending before the other threads"
                                          : "execve in a multithreaded program") +
               " is not supported yet (the program called " + syscall_name(nr) + ")";
    pending_ = Reason::Exit;
    return rewind_before_syscall(r);
  }
  if (multi() && nr == SYS_exit) {
    // One thread ends; the others go on. Its end is logged as the call.
    cur_nr_ = nr;
    cur_args_ = syscall_args(r);
    TRY(log_syscall_result(r.rip, 0));
    threads_->at(pid_).where = ThreadCtx::Where::InKernel;
    threads_->at(pid_).exiting = true;
    // The thread that joins it may run its next calls before the death is
    // reported (both orders happen); the buffer's sites may be patched from
    // here, a thread in exit() never comes back to a site.
    if (syscall_buffer_ && threads_->not_exiting() <= 1) syscall_buffer_->on_threads_gone();
    const bool was_running = threads_->running() == pid_;
    TRY(resume_now(0, PTRACE_CONT, false, false));
    if (!was_running) return ok_status();
    threads_->set_running(-1);
    return schedule_next(pid_);
  }
  if (is_fork_call(nr)) {
    // A child process runs unrecorded; threads are refused (children.h)
    // unless --threads.
    refusal_ = fork_refusal(nr, syscall_args(r), pid_, opts_.threads);
    if (!refusal_.empty()) {
      pending_ = Reason::Exit;
      return rewind_before_syscall(r);
    }
  }
  switch (nr) {
    case SYS_exit_group:
    case SYS_exit:
      pending_ = Reason::Exit;
      return rewind_before_syscall(r);
    case SYS_rseq: {
      // The kernel writes a registered rseq area behind the program's back on
      // preemption; refuse it (the C library copes with ENOSYS).
      return skip_with_result(r, -ENOSYS);
    }
    default: {
      std::array<uint64_t, 6> args = syscall_args(r);
      if (multi()) threads_->at(pid_).cut_wait.on_entry(nr, args, monotonic_ns());
      // A site the syscall buffer may patch runs traced, to its exit stop.
      const bool patch_candidate = syscall_buffer_ && syscall_buffer_->before_syscall(nr, args, r.rip, pid_);
      // Done by the recorder on the tracee's behalf: one stop instead of two.
      if (!patch_candidate)
        if (std::optional<int64_t> result = fast_write_.try_perform(nr, args)) return skip_with_result(r, *result);
      fast_write_.before_syscall(nr, args);
      cur_nr_ = nr;
      cur_args_ = args;
      cur_pc_ = r.rip;
      state_ = State::InSyscall;
      if (multi() && (pid_ != threads_->running() || may_block(nr, args))) return go_into_kernel();
      if (shared_ && !multi()) TRY(shared_->before_kernel(nr, args));
      return cont(0, PTRACE_SYSCALL);
    }
  }
}

// At a seccomp stop: the syscall is not run; the tracee sees `result` as its
// return value, and the log has the event the syscall-exit stop would have
// logged (no memory writes).
Status RecordSession::skip_with_result(user_regs_struct& r, int64_t result) {
  const long nr = static_cast<long>(r.orig_rax);
  store::Event ev;
  ev.kind = store::EventKind::Syscall;
  ev.tid = Tid(pid_);
  ev.pc = r.rip;
  ev.syscall_no = nr;
  ev.args = syscall_args(r);
  ev.result = result;
  r.orig_rax = static_cast<uint64_t>(-1);
  r.rax = static_cast<uint64_t>(result);
  TRY(set_regs(r));
  TRY(log_event(ev));
  return cont();
}

Status RecordSession::on_syscall_exit() {
  state_ = State::Running;
  user_regs_struct r = TRY(regs());
  const int64_t result = static_cast<int64_t>(r.rax);
  if (multi() && threads_->has(pid_)) {
    // A wait our stop ended with EINTR goes back in, as a restart code's
    // call does below; the program's own signal keeps its EINTR.
    ThreadCtx& c = threads_->at(pid_);
    const bool restored = c.cut_wait.put_back(cur_nr_, r);
    const bool by_us = result == -EINTR && pid_ != threads_->running() && !own_signal_pending(pid_, r);
    if (c.cut_wait.cut_at_exit(cur_nr_, cur_args_, by_us ? result : 0, VmReader(pid_))) {
      r.rax = static_cast<uint64_t>(cur_nr_);
      r.orig_rax = static_cast<uint64_t>(-1);
      r.rip -= 2;
      TRY(set_regs(r));
      c.cut_syscall = true;
      c.cut_restart_block = false;
      c.restart_nr = cur_nr_;
      return cont();
    }
    if (restored) TRY(set_regs(r));
  }
  if (process::is_restart_code(result)) {
    // Interrupted (by a signal or our tick): the stop that follows settles
    // it into a restart or EINTR and takes a checkpoint there. Another
    // thread than the running one is rewound now to issue the call again
    // (injected code run through it by a capture would lose the kernel's
    // own restart), and a checkpoint stores it so.
    if (multi() && pid_ != threads_->running()) {
      ThreadCtx& c = threads_->at(pid_);
      // Stored as before the call itself, also when it ran as restart_syscall.
      const long called = call_going_on(static_cast<long>(r.orig_rax));
      r.rax = static_cast<uint64_t>(called);
      r.orig_rax = static_cast<uint64_t>(-1);
      r.rip -= 2;
      TRY(set_regs(r));
      c.cut_syscall = true;
      c.cut_restart_block = result == process::kErestartRestartBlock;
      c.restart_nr = called;
    }
    return cont();
  }
  SyscallCall call{cur_nr_, cur_args_, result};
  std::vector<OutputRegion> regions;
  VmReader mem(pid_);
  const SyscallModel* model = find_syscall_model(cur_nr_);
  const SyscallClass cls = model ? model->outputs(call, mem, regions) : SyscallClass::Unmodelled;

  store::Event ev;
  ev.kind = store::EventKind::Syscall;
  ev.tid = Tid(pid_);
  ev.pc = r.rip;
  ev.syscall_no = cur_nr_;
  ev.args = cur_args_;
  ev.result = result;
  for (const OutputRegion& reg : regions) {
    store::MemoryWrite w;
    w.addr = reg.addr;
    w.bytes.resize(reg.len);
    // An output the kernel could not have written (bad pointer) is skipped.
    if (mem.read(reg.addr, w.bytes.data(), reg.len).ok()) ev.writes.push_back(std::move(w));
  }
  if (shared_) TRY_CTX(shared_->at_syscall_exit(ev, cls == SyscallClass::AddressSpace), "taking the turn back");
  TRY(log_event(ev));
  if (auto set = clear_child_tid_set_by(pid_, cur_nr_, cur_args_, result, mem))
    threads_->set_clear_child_tid(set->first, set->second);
  alt_stacks_.note_call(pid_, cur_nr_, cur_args_, result, mem);
  if (syscall_buffer_ && cls == SyscallClass::Modelled && TRY(syscall_buffer_->maybe_patch(r, cur_nr_, result))) {
    // Replay crosses the patch by restore: the checkpoint holds the patched page.
    TRY(set_regs(r));
    TRY(log_forced_checkpoint(r.rip));
    pending_ = std::max(pending_, Reason::Patch);
  }

  if (cur_nr_ == SYS_rt_sigaction && result == 0 && cur_args_[1] != 0) {
    uint64_t act[2];
    if (mem.read(cur_args_[1], act, sizeof act).ok())
      dispositions_.set(static_cast<int>(cur_args_[0]), {act[0], act[1]});
  }
  if (cls == SyscallClass::AddressSpace) {
    TRY_CTX(capture_->note_address_space_change(pid_), "tracking a new mapping");
    mark_progress();  // not the tracee's own time
  }
  if (cls == SyscallClass::Unmodelled) {
    fast_write_.forget_all();
    if (syscall_buffer_) TRY(syscall_buffer_->forget_fds());
    SLSDBG_DEBUG("record", "unmodelled %s: forcing a checkpoint", syscall_name(cur_nr_));
    TRY(log_forced_checkpoint(r.rip));
    pending_ = std::max(pending_, Reason::Forced);
  }
  return cont();
}

Status RecordSession::on_signal(int signo) {
  siginfo_t si;
  if (ptrace(PTRACE_GETSIGINFO, pid_, nullptr, &si) != 0) return Error::from_errno("ptrace(PTRACE_GETSIGINFO)");

  if (signo == SIGSEGV && si.si_code == SI_KERNEL) {
    user_regs_struct r = TRY(regs());
    uint8_t code[3] = {0, 0, 0};
    VmReader mem(pid_);
    if (mem.read(r.rip, code, 3).ok() || mem.read(r.rip, code, 2).ok()) {
      if (auto insn = tsc_instruction_at(code)) {
        store::Event ev = emulate_tsc(*insn, pid_, r);
        TRY(set_regs(r));
        TRY(log_event(ev));
        return cont();
      }
    }
  }

  // From here on the signal reaches the program (now, or held and re-sent
  // after the checkpoint): its handler may be reset (SA_RESETHAND).
  capture_->note_tracee_activity();

  // One of ours coming back after a checkpoint: deliver it as it was sent.
  if (!resending_.empty() && si.si_code == SI_TKILL && si.si_pid == getpid()) {
    for (auto it = resending_.begin(); it != resending_.end(); ++it) {
      if (it->si_signo != signo) continue;
      siginfo_t original = *it;
      resending_.erase(it);
      if (ptrace(PTRACE_SETSIGINFO, pid_, nullptr, &original) != 0)
        return Error::from_errno("ptrace(PTRACE_SETSIGINFO)");
      // Replay zeroes this too: whether the kernel's XSAVE into the frame
      // faults on our write protection must not decide its bytes.
      TRY(process::clear_signal_fpu_area(*task_, signo));
      // With threads, the frame's trapno (the thread's last trap, which
      // clones inherit and injected code sets) is made an int3's here and
      // in replay (process/signal_frame.h).
      if (threads_in_segment()) TRY(process::set_frame_trapno(*task_));
      store::Event ev;
      ev.kind = store::EventKind::Signal;
      ev.tid = Tid(pid_);
      ev.signo = signo;
      ev.siginfo.assign(reinterpret_cast<const uint8_t*>(&original),
                        reinterpret_cast<const uint8_t*>(&original) + sizeof original);
      TRY(log_event(ev));
      return cont(signo);
    }
  }

  if (classify_signal(si) == SignalTiming::Synchronous) {
    if (!crash_checkpoint_taken_ && kills_by_default(signo, si)) {
      // The crash is a moment: a checkpoint at the faulting instruction,
      // holding the siginfo. Resuming without the signal re-executes the
      // instruction, which faults again; that second fault is delivered.
      crash_checkpoint_taken_ = true;
      outcome_.crash = si;
      return checkpoint(Reason::Crash, false, &si);
    }
    user_regs_struct r = TRY(regs());
    store::Event ev;
    ev.kind = store::EventKind::Signal;
    ev.tid = Tid(pid_);
    ev.pc = r.rip;
    ev.signo = signo;
    ev.siginfo = siginfo_bytes(si);
    TRY(log_event(ev));
    return cont(signo);
  }
  // Ignored: the kernel would have thrown it away when it was sent.
  const user_regs_struct at = TRY(regs());
  if (kernel_discards(signo, dispositions_, at)) {
    // A waiting thread it cut goes back into its call, unparked and unlogged.
    if (multi() && pid_ != threads_->running() && !stopping_all_ && threads_->at(pid_).cut_syscall) {
      threads_->at(pid_).where = ThreadCtx::Where::InKernel;
      TRY(go_on_with_cut_call(pid_));
      return resume_now(0, PTRACE_CONT, false, false);
    }
    return cont();
  }
  // In a storm it waits for a checkpoint taken anyway (signal_pacing.h).
  std::optional<uint64_t> cpu;
  if (clock_) {
    Result<uint64_t> ns = clock_->read();
    if (ns.ok()) cpu = *ns;
  }
  const bool waited_before = pacing_.waiting();
  const Reason wanted = may_pace(si, at) && pacing_.wait(cpu) ? Reason::None : Reason::Signal;
  if (wanted == Reason::None && !waited_before && tick_) {
    // At the latest when the program has run about as long as the stop took.
    SLSDBG_DEBUG("record", "signal %d waits for the next checkpoint (a storm)", signo);
    tick_->set_interval(std::max<uint64_t>(pacing_.wait_ns(*cpu), 1'000'000));
    tick_->rearm();
  }
  // Asynchronous: hold it, checkpoint at the interrupt stop, deliver after.
  // A syscall it interrupted is settled now, while rax still holds the
  // kernel's restart code: once we discard the signal the kernel would
  // restart the syscall itself (no signal was delivered), and the held
  // signal's handler could no longer make it fail with EINTR.
  if (held_.empty()) TRY(settle_interrupted(signo));
  // A standard signal is pending at most once (the kernel merges a second
  // one into the first). Ours is held outside the kernel, so merge here too:
  // a timer that expires again during a slow checkpoint must not run its
  // handler twice where a native run would have run it once.
  // (Per thread: each thread has its own pending set.)
  if (signo < SIGRTMIN)
    for (size_t i = 0; i < held_.size(); i++)
      if (held_[i].si_signo == signo && held_tids_[i] == pid_) {
        pending_ = std::max(pending_, wanted);
        return cont();
      }
  held_.push_back(si);
  held_tids_.push_back(pid_);
  pending_ = std::max(pending_, wanted);
  return cont();
}

// Only where holding a signal longer changes nothing else: one thread, not
// in a call the signal cut (its EINTR must come with the handler), no
// shared memory turn, not a signal that ends the program,
// and not one the program sent itself (raise() runs the handler before it
// returns).
bool RecordSession::may_pace(const siginfo_t& si, const user_regs_struct& r) const {
  const bool cut_call = static_cast<int64_t>(r.orig_rax) >= 0 && process::is_restart_code(static_cast<int64_t>(r.rax));
  const bool own = (si.si_code == SI_USER || si.si_code == SI_QUEUE || si.si_code == SI_TKILL) && si.si_pid == tgid_;
  // Only a timer's (setitimer, timer_create): what storms. A SIGCHLD held
  // so across bash's wait4 replayed out of order (e2e_record_children).
  const bool timer = si.si_code == SI_TIMER || ((si.si_signo == SIGALRM || si.si_signo == SIGVTALRM ||
                                                 si.si_signo == SIGPROF) && si.si_code == SI_KERNEL);
  return timer && !multi() && !cut_call && !own && !(shared_ && shared_->active()) && stop_signal_ == 0 &&
         !kills_when_delivered(si);
}

// A synchronous fault kills when no handler runs: its disposition is
// SIG_DFL, or SIG_IGN or blocked, which the kernel overrides for faults.
bool RecordSession::kills_by_default(int signo, const siginfo_t& si) const {
  if (classify_signal(si) != SignalTiming::Synchronous) return false;
  if (!dispositions_.runs_handler(signo)) return true;
  return blocked(signo).value_or(false);
}

// An asynchronous signal whose default action (SIG_DFL, not blocked) ends the
// process: everything but the ignored-by-default and stop signals.
bool RecordSession::kills_when_delivered(const siginfo_t& si) const {
  const int signo = si.si_signo;
  switch (signo) {
    case SIGCHLD: case SIGCONT: case SIGURG: case SIGWINCH:
    case SIGSTOP: case SIGTSTP: case SIGTTIN: case SIGTTOU:
      return false;
    default: break;
  }
  if (signo < 1 || signo > 64 || dispositions_.get(signo).handler != 0) return false;
  const std::optional<bool> b = blocked(signo);
  return b && !*b;
}

std::optional<bool> RecordSession::blocked(int signo) const {
  Result<process::PendingSignals> p = process::read_pending_signals(tgid_, pid_);
  if (!p.ok()) return std::nullopt;
  return (p->blocked & (1ull << (signo - 1))) != 0;
}

Status RecordSession::log_syscall_result(uint64_t pc, int64_t result) {
  store::Event ev;
  ev.kind = store::EventKind::Syscall;
  ev.tid = Tid(pid_);
  ev.pc = pc;
  ev.syscall_no = cur_nr_;
  ev.args = cur_args_;
  ev.result = result;
  return log_event(ev);
}

Status RecordSession::log_forced_checkpoint(uint64_t pc) {
  store::Event forced;
  forced.kind = store::EventKind::ForcedCheckpoint;
  forced.tid = Tid(pid_);
  forced.pc = pc;
  forced.syscall_no = cur_nr_;
  return log_event(forced);
}

// Signals queued for the tracee and not blocked: the kernel reports them at
// the next resumption (a trapped rdtsc's SIGSEGV can sit behind our
// interrupt). They must be handled before capture runs injected code.
bool deliverable_signal_pending(pid_t pid) {
  Result<uint64_t> p = process::unblocked_queued_signals(pid, true);
  if (!p.ok()) return false;  // gone: waitpid reports it next
  return *p != 0;
}

Status RecordSession::on_interrupt() {
  interrupt_requested_ = false;
  if (multi() && pid_ != threads_->running()) {
    // A new thread's first stop, or a cut syscall's trap after a
    // checkpoint: that syscall goes on (restarted by the kernel).
    ThreadCtx& c = threads_->at(pid_);
    if (c.cut_syscall && !stopping_all_) {
      c.cut_syscall = false;
      c.where = ThreadCtx::Where::InKernel;
      const bool program = !rewound_before_syscall(pid_);
      TRY(go_on_with_cut_call(pid_));
      return resume_now(0, PTRACE_CONT, false, program);
    }
    return cont();
  }
  if (pending_ == Reason::None) return cont();
  // Out of the syscall buffer's stub first: a signal that arrives while
  // stepping is then seen below like any other.
  if (syscall_buffer_) TRY(drain_syscall_buffer(true));
  if (deliverable_signal_pending(pid_)) {
    // Let the signal be reported first (the jobctl trap would otherwise come
    // before it again); its stop's resumption asks for the interrupt anew.
    if (ptrace(PTRACE_CONT, pid_, nullptr, nullptr) != 0 && errno != ESRCH)
      return Error::from_errno("ptrace(PTRACE_CONT)");
    if (threads_) note_resume(pid_, PTRACE_CONT, true);
    return ok_status();
  }
  if (pacing_.waiting()) pending_ = std::max(pending_, Reason::Signal);
  // Ctrl-C reaches the program and the recorder together. When the
  // program's stop came first, its held copy must not end it before the
  // recorder's final checkpoint: the recording stops here (as on_tick does).
  const bool held_stop = std::any_of(held_.begin(), held_.end(), [](const siginfo_t& h) { return h.si_signo == g_stop_signal; });
  if (g_stop_signal != 0 && stop_signal_ == 0 && held_stop && !multi()) {
    stop_signal_ = g_stop_signal;
    refusal_ = "stopped by " + signal_name(stop_signal_);
    pending_ = Reason::Exit;
  }
  const Reason reason = pending_;
  pending_ = Reason::None;
  TRY(settle_interrupted(held_.empty() ? 0 : held_.front().si_signo));
  const bool restarted = std::exchange(restarted_for_checkpoint_, false);
  return checkpoint(reason, restarted);
}

// The execve succeeded (a failed one returns at its syscall-exit stop, as
// an unmodelled call): log it, arm the new image and take its "exec"
// checkpoint, which replay reaches by restore (a ForcedCheckpoint event).
Status RecordSession::on_exec() {
  state_ = State::Running;
  fast_write_.forget_all();
  alt_stacks_.note_exec(tgid_);
  const user_regs_struct r = TRY(regs());
  // The call's event names the old image's `syscall` (replay's reverse
  // moves stop there); the checkpoint's, the new image's entry.
  TRY(log_syscall_result(cur_nr_ == SYS_execve || cur_nr_ == SYS_execveat ? cur_pc_ : r.rip, 0));
  TRY(log_forced_checkpoint(r.rip));

  capture_.reset();
  capture_ = TRY(arm_new_image(*task_, opts_.tracker, capture_options(), vdso_route()));
  capture_->on_torn_copy([owner = tick_->owner()] { Tick::fire_now(owner); });
  fast_write_ = FastWrite::for_process(pid_);
  if (opts_.syscall_buffer && (syscall_buffer_ || in_parents_memory_)) syscall_buffer_.emplace(TRY(SyscallBuf::arm(pid_)));
  dispositions_ = initial_dispositions(pid_);
  if (shared_) TRY(shared_->on_exec());
  if (std::exchange(in_parents_memory_, false)) {
    // A vfork child has memory of its own from here: it is a member like
    // any other (turns, cuts).
    shared_ = std::make_unique<SharedTurn>(group_->baton(), tgid_);
    TRY(shared_->start());
    group_->cuts().join(cut_pid_ = tgid_, tick_->owner());
  }
  const ExecImage img = exec_image(pid_);
  SLSDBG_INFO("record", "execve: now %s (build-id %s)", img.path.c_str(),
              img.build_id.empty() ? "none" : img.build_id.c_str());
  outcome_.execs.push_back(img.path + (img.build_id.empty() ? "" : " build-id " + img.build_id));
  clear_all_next_ = true;
  // This checkpoint is the tick too; a stop asked for before it (Ctrl-C, a
  // member leaving the group while it execs) is asked again after it.
  const Reason asked = std::exchange(pending_, Reason::None);
  TRY(checkpoint(Reason::Exec, false));
  if (asked == Reason::Exit && !done_) {
    pending_ = Reason::Exit;
    TRY(request_interrupt());
  }
  return ok_status();
}

// A syscall interrupted by `signo` (0: by our own interrupt) is settled the
// way the kernel would settle it when that signal is delivered next: rewound
// to be re-issued, or failed with EINTR (logged as its result). orig_rax = -1
// afterwards, so the kernel does not settle it a second time.
Status RecordSession::settle_interrupted(int signo) {
  user_regs_struct r = TRY(regs());
  const int64_t rax_before = static_cast<int64_t>(r.rax), orig_before = static_cast<int64_t>(r.orig_rax);
  const RestartOutcome settled = settle_interrupted_syscall(r, signo, dispositions_);
  SLSDBG_DEBUG("record", "before checkpoint %lu: rax %ld orig_rax %ld signo %d -> settled %d",
               static_cast<unsigned long>(checkpoints_), static_cast<long>(rax_before),
               static_cast<long>(orig_before), signo, static_cast<int>(settled));
  if (settled == RestartOutcome::Restart || settled == RestartOutcome::ReturnEintr) TRY(set_regs(r));
  if (settled == RestartOutcome::Restart) restarted_for_checkpoint_ = true;
  if (settled == RestartOutcome::ReturnEintr) {
    // The application sees EINTR from this call: log it as its result.
    TRY(log_syscall_result(r.rip, -EINTR));
  }
  if (settled == RestartOutcome::KernelRestartBlock) {
    in_restart_block_ = true;  // until the next checkpoint
    SLSDBG_WARN("record", "checkpoint %lu taken inside a restartable sleep; restoring it re-issues restart_syscall",
                static_cast<unsigned long>(checkpoints_));
  }
  return ok_status();
}

Status RecordSession::on_tick() {
  if (exit_checkpoint_taken_) return ok_status();
  if (group_) group_->cuts().on_tick(tgid_);
  std::string escaped = member_ && stop_signal_ == 0 ? group_->escaped(tgid_, member_->parent) : "";
  if (!escaped.empty()) {
    // A daemon's setsid + double fork (member.h): ended like a stop.
    stop_signal_ = SIGKILL;
    refusal_ = escaped;
    pending_ = Reason::Exit;
    if (!multi()) return request_interrupt();
  } else if (stop_signal_ != 0 && pending_ < Reason::Exit) {
    // A stop asked for earlier whose final checkpoint another took the
    // place of: asked again (a member asleep in the kernel would otherwise
    // never be ticked again).
    pending_ = Reason::Exit;
    if (!multi()) return request_interrupt();
  } else if (g_stop_signal != 0 && stop_signal_ == 0) {
    // The final checkpoint ends the recording (the refusal path: the program
    // is killed right after it and history ends there).
    stop_signal_ = g_stop_signal;
    refusal_ = "stopped by " + signal_name(stop_signal_);
    pending_ = Reason::Exit;
    if (!multi()) return request_interrupt();
  } else {
    pending_ = std::max(pending_, Reason::Tick);
  }
  if (multi()) {
    if (threads_->running() != -1) {
      enter(threads_->running());
      if (state_ == State::Running) return request_interrupt();
      // Creating a thread, which the kernel may already have started: the
      // call returns at once, and the new thread must not run before the
      // call is logged (replay has no such thread until it serves the
      // clone). The checkpoint is taken at the call's exit, as a single
      // thread's is (#16: "switch to thread T: no such thread", 2 of 12
      // thr_sigchld recordings).
      if (creates_thread(cur_nr_, cur_args_, pid_)) return ok_status();
      // Blocked in a call that gives no way: it waits in the kernel as
      // the others do, and a parked thread runs.
      threads_->at(pid_).where = ThreadCtx::Where::InKernel;
      threads_->set_running(-1);
      if (threads_->any_parked()) return schedule_next(pid_);
    }
    // Every thread waits in the kernel, and a checkpoint would cut each
    // call. One that restarts from scratch (a relative sleep, a timed wait
    // or poll) would wait longer than it asked, again at every tick (a
    // thread's usleep(50 ms) beside a pthread_join took 1.6 s): as with
    // one thread, the tick is taken when a call returns. Not while it takes
    // part in memory shared with other members: the turn passes at this
    // checkpoint (shared_turn.h).
    const bool turns = shared_ && shared_->active();
    if (pending_ == Reason::Tick && !turns && !waits_restart_exactly()) return ok_status();
    return checkpoint_all_in_kernel();
  }
  if (state_ == State::Running || interruptible_while_blocked(cur_nr_, cur_args_)) return request_interrupt();
  return ok_status();  // taken when the blocking syscall returns
}

Status RecordSession::loop() {
  TRY(cont());
  while (!done_) {
    int status = 0;
    tick_->allow();
    pid_t got;
    if (tick_->take_due()) {
      got = -1;
      errno = EINTR;
    } else {
      // The recorded process or one of its children; not the tracees of
      // other members' threads (member.h).
      got = waitpid(-1, &status, __WALL | __WNOTHREAD);
    }
    const int wait_errno = errno;
    tick_->hold();
    if (got < 0) {
      if (wait_errno != EINTR) return Error::from_errno("waitpid", wait_errno);
      tick_->take_due();
      // A tracee blocked in a long syscall would otherwise keep it unsettled.
      TRY(settle_deferred(false));
      TRY(on_tick());
      continue;
    }
    if (!threads_->has(got)) {
      if (!opts_.threads || !is_thread_of(got, tgid_)) {
        TRY(children_->on_stop(got, status));
        continue;
      }
      threads_->add(got);  // its first stop came before its creator's clone event
    }
    threads_->note_stopped(got);
    enter(got);
    stop_time_ = monotonic_ns();
    TRY(settle_deferred(true));
    stop_time_ = monotonic_ns();  // a wait for the copy counts once, for the checkpoint that deferred it
    TRY(dispatch(status));
  }
  return ok_status();
}

Status RecordSession::dispatch(int status) {
  interrupt_requested_ = false;  // whatever stop this is, it consumed the trap
  using process::StopKind;
  const process::WaitResult s = process::decode_wait_status(status);
  if (threads_ && threads_->has(pid_)) threads_->at(pid_).at_entry = s.is_seccomp() || s.is_fork_event();
  // Buffered syscalls come before whatever this stop logs.
  if (syscall_buffer_ && s.stopped()) TRY(drain_syscall_buffer(false));
  if (!s.stopped() && pid_ != tgid_) return on_thread_gone(pid_);
  switch (s.kind) {
    case StopKind::Exited:
    case StopKind::Killed: {
      store::Event ev;
      ev.kind = store::EventKind::Exit;
      ev.tid = Tid(pid_);
      ev.exit_status = s.exit_code;
      ev.signo = s.kind == StopKind::Killed ? s.signo : 0;
      pid_ = tgid_ = -1;
      TRY(log_event(ev));
      TRY_CTX(writer_->finish(summary()), "finishing the recording");
      outcome_.end = s.kind == StopKind::Exited ? RecordOutcome::End::Exited : RecordOutcome::End::Killed;
      outcome_.exit_code = s.exit_code;
      outcome_.signo = s.signo;
      done_ = true;
      break;
    }
    case StopKind::SyscallStop: TRY(on_syscall_exit()); break;  // only after a seccomp stop: an exit
    case StopKind::SignalDelivery: TRY(on_signal(s.signo)); break;
    case StopKind::PtraceEvent:
      if (s.is_seccomp()) {
        TRY(on_seccomp());
        break;
      }
      if (s.is_interrupt()) {
        TRY(on_interrupt());
        break;
      }
      if (s.event == PTRACE_EVENT_EXEC) {
        TRY(on_exec());
        break;
      }
      if (s.is_fork_event()) {
        unsigned long child = 0;
        if (ptrace(PTRACE_GETEVENTMSG, pid_, nullptr, &child) == 0) {
          const pid_t c = static_cast<pid_t>(child);
          if (opts_.threads && s.event == PTRACE_EVENT_CLONE && is_thread_of(c, tgid_))
            threads_->add(c);  // parked until scheduled
          else
            children_->adopt(c);
        }
        TRY(cont(0, PTRACE_SYSCALL));  // on to the call's exit stop, which logs it
        break;
      }
      TRY(cont());
      break;
    case StopKind::GroupStop: TRY(cont()); break;
  }
  return ok_status();
}

// ---- record --threads: one thread runs at a time (thread_set.h) ----

void RecordSession::enter(pid_t tid) {
  if (tid == pid_ || !threads_ || !threads_->has(tid)) return;
  if (threads_->has(pid_)) {
    ThreadCtx& c = threads_->at(pid_);
    c.in_syscall = state_ == State::InSyscall;
    c.nr = cur_nr_;
    c.args = cur_args_;
    c.interrupt_requested = interrupt_requested_;
    c.restarted_for_checkpoint = restarted_for_checkpoint_;
  }
  const ThreadCtx& n = threads_->at(tid);
  state_ = n.in_syscall ? State::InSyscall : State::Running;
  cur_nr_ = n.nr;
  cur_args_ = n.args;
  interrupt_requested_ = n.interrupt_requested;
  restarted_for_checkpoint_ = n.restarted_for_checkpoint;
  pid_ = tid;
  task_ = &task_of(tid);
}

process::Task& RecordSession::task_of(pid_t tid) {
  if (tid == tgid_) return *leader_task_;
  std::unique_ptr<process::Task>& t = thread_tasks_[tid];
  if (!t) {
    t = std::make_unique<process::Task>(Tid(tid), tgid_);
    t->set_has_injection_page(true);  // one address space
  }
  return *t;
}

// Every change of the running thread is logged, also back to the thread
// that ran before a stretch where none ran: replay follows the log alone.
Status RecordSession::become_running(pid_t tid) {
  const bool changed = threads_->running() != tid;
  threads_->set_running(tid);
  threads_->at(tid).cut_syscall = false;  // it goes on from its stop as a single thread would
  if (!changed) return ok_status();
  last_switch_ = tid;
  switched_in_segment_ = true;
  store::Event ev;
  ev.kind = store::EventKind::ThreadSwitch;
  ev.tid = Tid(tid);
  return log_event(ev);
}

// Checks DESIGN.md's rule after each resumption: one thread runs program
// code at a time. A thread resumed into the kernel only (PTRACE_SYSCALL
// from a syscall-entry stop) or with a PTRACE_INTERRUPT that traps before
// any instruction does not count.
void RecordSession::note_resume(pid_t tid, __ptrace_request request, bool program) {
  if (!threads_ || !threads_->has(tid)) return;
  const ThreadCtx& c = threads_->at(tid);
  if (request == PTRACE_SYSCALL && c.at_entry) program = false;
  if (tid == pid_ && interrupt_requested_) program = false;
  if (std::optional<pid_t> other = threads_->note_resumed(tid, program)) {
    if (threads_->overlaps() == 1)
      SLSDBG_WARN("record", "threads %d and %d both run program code (the recording may not replay)", tid, *other);
    else
      SLSDBG_DEBUG("record", "threads %d and %d both run program code", tid, *other);
    assert(!"two threads run program code at once");
  }
}

// The running thread gave way (or ended): the next parked one runs, or
// none when all wait in the kernel (the first to come back runs then).
Status RecordSession::schedule_next(pid_t after) {
  const std::optional<pid_t> next = threads_->next_parked(after);
  if (!next) return ok_status();
  enter(*next);
  TRY(become_running(*next));
  ThreadCtx& c = threads_->at(*next);
  return resume_now(std::exchange(c.resume_signo, 0), c.resume_request);
}

// At the seccomp stop of a call that may wait for another thread: it runs in
// the kernel, where it executes nothing of the program, and stops at its
// exit (PTRACE_SYSCALL); meanwhile another thread runs.
Status RecordSession::go_into_kernel() {
  threads_->at(pid_).where = ThreadCtx::Where::InKernel;
  const bool was_running = threads_->running() == pid_;
  TRY(resume_now(0, PTRACE_SYSCALL, was_running));
  if (!was_running) return ok_status();
  threads_->set_running(-1);
  return schedule_next(pid_);
}

// Before a checkpoint: every thread in a syscall is interrupted and handled
// until it parks (its syscall finished and was logged, or was cut: then it
// is stored as just before the call and goes on after the checkpoint).
Status RecordSession::stop_all() {
  if (!multi()) return ok_status();
  const pid_t back = pid_;
  stopping_all_ = true;
  std::vector<pid_t> waiting;
  for (pid_t t : threads_->tids())
    if (threads_->at(t).where == ThreadCtx::Where::InKernel) {
      if (ptrace(PTRACE_INTERRUPT, t, nullptr, nullptr) != 0 && errno != ESRCH)
        return Error::from_errno("ptrace(PTRACE_INTERRUPT)");
      waiting.push_back(t);
    }
  for (pid_t t : waiting) TRY(wait_until_parked(t));
  TRY(flush_queued_signals());
  TRY(enter_logged_handlers());
  stopping_all_ = false;
  enter(back);
  return ok_status();
}

// Right after a checkpoint: each signal it re-sent to a thread other than
// the running one is taken at that thread's delivery stop now and logged,
// so every re-sent signal is a leading event of the segment (restore
// queues those, restore.h); the thread parks there until it runs.
Status RecordSession::take_resent_signals() {
  if (!multi() || resending_.empty()) return ok_status();
  const pid_t back = pid_;
  stopping_all_ = true;
  for (pid_t t : threads_->tids()) {
    if (t == threads_->running() || resending_.empty()) continue;  // the running one takes it first thing
    ThreadCtx& c = threads_->at(t);
    if (c.where != ThreadCtx::Where::Parked || c.resume_signo != 0 || c.resume_request != PTRACE_CONT) continue;
    Result<uint64_t> p = process::unblocked_queued_signals(t, false);
    if (!p.ok() || !*p) continue;
    TRY(resume_to_signal_stop(t));
    c.where = ThreadCtx::Where::InKernel;
    TRY(wait_until_parked(t));
  }
  stopping_all_ = false;
  enter(back);
  return ok_status();
}

// Inside stop_all(): a signal still queued in the kernel for a parked thread
// (a tgkill to a thread that waits its turn) is taken from the queue at its
// delivery stop and held like any other, so the checkpoint (which keeps
// only blocked pending signals) re-sends it; it would be lost otherwise.
Status RecordSession::flush_queued_signals() {
  const Reason pending_before = pending_;
  for (pid_t t : threads_->tids()) {
    ThreadCtx& c = threads_->at(t);
    if (t == threads_->running() || c.where != ThreadCtx::Where::Parked || c.resume_signo != 0 ||
        c.resume_request != PTRACE_CONT)
      continue;
    Result<uint64_t> p = process::unblocked_queued_signals(t, false);
    if (!p.ok() || !*p) continue;
    SLSDBG_DEBUG("record", "thread %d: a queued signal is taken before the checkpoint", t);
    TRY(resume_to_signal_stop(t));
    c.where = ThreadCtx::Where::InKernel;
    TRY(wait_until_parked(t));
  }
  pending_ = pending_before;  // held now, re-sent by this checkpoint
  return ok_status();
}

// Resumes parked thread `t`, which has an unblocked signal queued: the
// kernel reports its delivery stop before any instruction runs (a
// PTRACE_INTERRUPT would trap first and leave the signal queued).
Status RecordSession::resume_to_signal_stop(pid_t t) {
  if (ptrace(PTRACE_CONT, t, nullptr, nullptr) != 0 && errno != ESRCH) return Error::from_errno("ptrace(PTRACE_CONT)");
  note_resume(t, PTRACE_CONT, false);
  threads_->at(t).where = ThreadCtx::Where::InKernel;  // until its stop parks it again
  return ok_status();
}

// Inside stop_all(): handles `t`'s stops until it parks.
Status RecordSession::wait_until_parked(pid_t t) {
  while (threads_->has(t) && threads_->at(t).where == ThreadCtx::Where::InKernel) {
    int status = 0;
    const pid_t got = waitpid(t, &status, __WALL);
    if (got < 0) {
      if (errno == EINTR) continue;
      if (errno == ECHILD) {
        threads_->remove(t);
        break;
      }
      return Error::from_errno("waitpid");
    }
    threads_->note_stopped(t);
    enter(t);
    TRY(dispatch(status));
  }
  return ok_status();
}

// Inside stop_all(): a parked thread whose signal was logged at its
// delivery stop (it waits its turn to run) has it delivered now, up to the
// handler's first instruction: the kernel builds the frame and a
// PTRACE_INTERRUPT stops it before any instruction runs. A checkpoint has
// no "about to be delivered" state, and such a thread resumed after it as
// a cut call would run its handler while another thread runs.
Status RecordSession::enter_logged_handlers() {
  for (pid_t t : threads_->tids()) {
    ThreadCtx& c = threads_->at(t);
    if (c.where != ThreadCtx::Where::Parked || c.resume_signo == 0) continue;
    Result<process::PendingSignals> p = process::read_pending_signals(tgid_, t);
    if (!p.ok() || !(p->caught & (1ull << (c.resume_signo - 1)))) continue;
    SLSDBG_DEBUG("record", "thread %d: signal %d delivered before the checkpoint", t, c.resume_signo);
    c.cut_syscall = false;  // the frame holds the rewound call
    if (ptrace(PTRACE_INTERRUPT, t, nullptr, nullptr) != 0 && errno != ESRCH)
      return Error::from_errno("ptrace(PTRACE_INTERRUPT)");
    if (ptrace(c.resume_request, t, nullptr, reinterpret_cast<void*>(static_cast<long>(std::exchange(c.resume_signo, 0)))) !=
            0 &&
        errno != ESRCH)
      return Error::from_errno("ptrace(PTRACE_CONT)");
    note_resume(t, PTRACE_CONT, false);  // the interrupt traps first
    c.where = ThreadCtx::Where::InKernel;  // until its stop parks it again
    TRY(wait_until_parked(t));
  }
  return ok_status();
}

// A tick while every thread waits in a syscall: stop them all and take the
// checkpoint from the leader's context.
bool RecordSession::waits_restart_exactly() {
  for (pid_t t : threads_->tids()) {
    const ThreadCtx& c = threads_->at(t);
    if (c.where != ThreadCtx::Where::InKernel) continue;
    const long nr = t == pid_ ? cur_nr_ : c.nr;
    if (!interruptible_while_blocked(nr, t == pid_ ? cur_args_ : c.args)) return false;
  }
  return true;
}

Status RecordSession::checkpoint_all_in_kernel() {
  TRY(stop_all());
  if (!threads_->has(tgid_)) return ok_status();
  enter(tgid_);
  const Reason reason = std::exchange(pending_, Reason::None);
  if (reason == Reason::None) return ok_status();
  return checkpoint(reason, false);
}

// A thread other than the leader ended (its exit, or the group's).
Status RecordSession::on_thread_gone(pid_t tid) {
  const bool was_running = threads_->running() == tid;
  threads_->remove(tid);
  thread_tasks_.erase(tid);
  alt_stacks_.forget(tid);
  pid_ = -1;  // no context to save
  if (!threads_->has(tgid_)) return ok_status();
  // Alone again: it runs (or returns from its call) as before any thread.
  if (!multi()) threads_->set_running(tgid_);
  if (!multi() && syscall_buffer_) syscall_buffer_->on_threads_gone();
  if (stopping_all_) return ok_status();  // stop_all() goes back to its thread
  enter(tgid_);
  return multi() && was_running ? schedule_next(tid) : ok_status();
}

// A thread whose syscall was cut (rewound at its exit stop) sits just
// before it: ThreadState::restarted_syscall says so. Stored with the
// program's call: one that go_on_with_cut_call prepared at an earlier
// checkpoint and that has not run since (another thread ran) holds
// restart_syscall in rax, or the time left in place of its timeout.
void RecordSession::store_cut_syscalls(store::ProcessState& st, const std::vector<pid_t>& tids) {
  for (size_t i = 0; i < tids.size() && i < st.threads.size(); i++) {
    const ThreadCtx& c = threads_->at(tids[i]);
    if (!c.cut_syscall) continue;
    store::ThreadState& t = st.threads[i];
    t.restarted_syscall = true;
    if (c.cut_restart_block && static_cast<long>(t.regs.rax) == SYS_restart_syscall)
      t.regs.rax = static_cast<uint64_t>(c.restart_nr);
    c.cut_wait.put_back(static_cast<long>(t.regs.rax), t.regs);
  }
}

// A cut call goes on as though never cut, its thread rewound before it: a
// sleep issues restart_syscall instead (the kernel kept the sleep's end in
// the thread's restart block), a wait ended with EINTR gets the time it
// has left (cut_wait.h).
Status RecordSession::go_on_with_cut_call(pid_t tid) {
  ThreadCtx& c = threads_->at(tid);
  if (!c.cut_restart_block && !c.cut_wait.active()) return ok_status();
  if (!rewound_before_syscall(tid)) return ok_status();
  user_regs_struct r;
  if (ptrace(PTRACE_GETREGS, tid, nullptr, &r) != 0) return ok_status();  // gone: waitpid reports it
  bool changed = false;
  if (c.cut_restart_block) {
    if (static_cast<long>(r.rax) != c.restart_nr) return ok_status();  // not the cut call's state any more
    r.rax = SYS_restart_syscall;
    changed = true;
  } else {
    std::optional<recorder::CutWait::PointedTimeout> pointed;
    changed = c.cut_wait.shorten(r, monotonic_ns(), pointed);
    if (pointed && !process::write_remote(tid, pointed->addr, &pointed->ts, sizeof pointed->ts).ok())
      return ok_status();  // gone, or the stack not writable: the call goes back in as it was
  }
  if (changed && ptrace(PTRACE_SETREGS, tid, nullptr, &r) != 0 && errno != ESRCH)
    return Error::from_errno("ptrace(PTRACE_SETREGS)");
  return ok_status();
}

// A signal of the program's own is queued for `tid` and not blocked: one
// the kernel would not have thrown away natively (`r`: its registers).
// Then an EINTR is the program's to see.
bool RecordSession::own_signal_pending(pid_t tid, const user_regs_struct& r) {
  Result<uint64_t> p = process::unblocked_queued_signals(tid, true);
  if (!p.ok()) return true;  // gone: nothing to go back into
  for (int signo = 1; signo <= 64; signo++)
    if ((*p >> (signo - 1)) & 1 && !process::kernel_discards(signo, dispositions_, r)) return true;
  return false;
}

// restart_syscall issued by a thread whose cut sleep goes on: the call it
// continues, which the log keeps. Any other call ends that sleep's restart.
long RecordSession::call_going_on(long nr) {
  if (!threads_ || !threads_->has(pid_)) return nr;
  ThreadCtx& c = threads_->at(pid_);
  if (nr == SYS_restart_syscall && c.cut_restart_block) return c.restart_nr;
  c.cut_restart_block = false;
  return nr;
}

// After a checkpoint, cut syscalls go on: the kernel restarts them.
Status RecordSession::resume_cut_threads() {
  if (!multi()) return ok_status();
  for (pid_t t : threads_->tids()) {
    ThreadCtx& c = threads_->at(t);
    if (!c.cut_syscall || c.where != ThreadCtx::Where::Parked) continue;
    if (c.resume_signo != 0) continue;  // its handler runs when it is scheduled
    c.where = ThreadCtx::Where::InKernel;
    const bool program = c.resume_signo != 0 || !rewound_before_syscall(t);  // else it only re-issues its call
    TRY(go_on_with_cut_call(t));
    if (ptrace(c.resume_request, t, nullptr, reinterpret_cast<void*>(static_cast<long>(std::exchange(c.resume_signo, 0)))) != 0 &&
        errno != ESRCH)
      return Error::from_errno("ptrace(PTRACE_CONT)");
    note_resume(t, c.resume_request, program);
  }
  return ok_status();
}

// After a ptrace call failed: did the tracee die of SIGKILL under it? Either
// it is gone already (capture's injection reaped it), or its death is about
// to be reported: a zombie still answers kill(pid, 0), so wait (briefly,
// never blocking) for waitpid to report it. Not only after ESRCH: a kill
// during capture shows up as e.g. an empty /proc/PID/maps.
bool tracee_was_killed(pid_t pid, const Error& error) {
  if (kill(pid, 0) != 0 && errno == ESRCH) return true;
  const int tries = error.errno_value == ESRCH ? 200 : 20;
  for (int i = 0; i < tries; ++i) {
    int status = 0;
    pid_t got = waitpid(pid, &status, __WALL | WNOHANG);
    if (got == pid) {
      if (WIFSIGNALED(status) || WIFEXITED(status)) return true;
      return false;  // a stop: it is alive, the error stands
    }
    if (got < 0) return errno == ECHILD;
    usleep(10'000);
  }
  return false;
}

Result<RecordOutcome> RecordSession::run() {
  Status started = start();
  if (!started.ok()) {
    kill_tracee();
    // The directory claimed before the spawn, if nothing was stored in it
    // (rmdir removes only an empty one); the store begun before the spawn
    // and never given its meta, with what it created.
    if (late_meta_ && !meta_sent_) abandon_store();
    else if (!writer_) ::rmdir(opts_.out_dir.c_str());
    return started.take_error();
  }
  Status ran = loop();
  shared_.reset();  // its turn goes to the others
  if (tick_) tick_->stop();
  if (group_ && cut_pid_ > 0) group_->cuts().leave(cut_pid_);  // gone: no cut waits for it
  // Children still running are served until they exit (children.h).
  if (ran.ok() && children_) ran = children_->drain();
  if (children_) outcome_.children = children_->started();
  SLSDBG_DEBUG("record", "%llu syscalls performed by the recorder at their seccomp stop",
               static_cast<unsigned long long>(fast_write_.performed()));
  SLSDBG_DEBUG("record", "%llu seccomp stops: %s", static_cast<unsigned long long>(census_.total()),
               census_.summary(12).c_str());
  if (syscall_buffer_) {
    outcome_.buffered_syscalls = syscall_buffer_->drained();
    outcome_.patched_sites = syscall_buffer_->patched_sites();
  }
  if (threads_) {
    outcome_.threads = threads_->started();
    outcome_.thread_overlaps = threads_->overlaps();
  }
  if (!ran.ok() && tgid_ > 0 && tracee_was_killed(tgid_, ran.error())) {
    // The tracee vanished under a ptrace operation: only SIGKILL ends a
    // stopped tracee. Record it as killed.
    pid_ = tgid_ = -1;
    store::Event ev;
    ev.kind = store::EventKind::Exit;
    ev.signo = SIGKILL;
    Status logged = log_event(ev);
    if (logged.ok()) logged = writer_->finish(summary());
    if (!logged.ok()) return logged.take_error();
    outcome_.end = RecordOutcome::End::Killed;
    outcome_.signo = SIGKILL;
    outcome_.checkpoints = checkpoints_;
    outcome_.events = events_;
    return outcome_;
  }
  if (!ran.ok()) {
    kill_tracee();
    // Best effort: a failed store may refuse this too; complete checkpoints
    // stay readable either way.
    if (writer_) (void)writer_->finish(summary());
    return ran.take_error();
  }
  outcome_.checkpoints = checkpoints_;
  outcome_.events = events_;
  return outcome_;
}

}  // namespace

Result<RecordOutcome> record_program(const RecordOptions& options) {
  if (options.argv.empty()) return Error::msg("no program given");
  cpu_set_t all_cpus;
  if (sched_getaffinity(0, sizeof all_cpus, &all_cpus) != 0) return Error::from_errno("sched_getaffinity");
  MemberGroup group(options, all_cpus);
  RecordSession session(options, &group);
  Result<RecordOutcome> outcome = session.run();
  group.root_ended();
  group.join_all();
  if (outcome.ok()) {
    outcome->group_cuts = group.cuts().completed();
    outcome->abandoned_cuts = group.cuts().abandoned();
    outcome->shared_turns = group.baton().handovers();
    if (!group.cuts().error().empty()) outcome->member_errors.push_back("group cuts: " + group.cuts().error());
  }
  if (outcome.ok())
    for (const MemberReport& m : group.reports()) {
      outcome->members.push_back(m.pid);
      outcome->buffered_syscalls += m.outcome.buffered_syscalls;  // each member drains its own buffer
      if (!m.error.empty()) outcome->member_errors.push_back("child process " + std::to_string(m.pid) + ": " + m.error);
      else if (m.outcome.end == RecordOutcome::End::Refused || m.outcome.end == RecordOutcome::End::Stopped)
        outcome->member_errors.push_back("child process " + std::to_string(m.pid) + ": " + m.outcome.refusal);
    }
  return outcome;
}

Result<RecordOutcome> record_member(const RecordOptions& options, const MemberStart& start, MemberGroup* group) {
  RecordSession session(options, group, &start);
  return session.run();
}

}  // namespace slsdbg::recorder
