#include "engine/replay/threaded_timeline.h"

#include <signal.h>
#include <sys/mman.h>
#include <ucontext.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include "common/log.h"
#include "engine/replay/exec_boundary.h"
#include "engine/replay/fork_events.h"
#include "engine/replay/move_cut.h"
#include "engine/replay/relay_site.h"
#include "engine/replay/task_code_reader.h"
#include "engine/replay/thread_check.h"
#include "engine/replay/thread_counters.h"
#include "engine/replay/thread_watch.h"
#include "engine/replay/trampoline_code.h"
#include "engine/replay/go_code.h"
#include "engine/replay/ways_in.h"
#include "engine/replay/write_filter.h"
#include "process/inject.h"
#include "process/proc_maps.h"
#include "process/syscallbuf_site.h"
#include "process/syscallbuf_stub.h"

namespace slsdbg::replay {

namespace {

constexpr uint8_t kInt3 = 0xcc;

// A function run on a stack of its own, which can pause (yield) in the
// middle and be entered again where it paused. Same OS thread throughout,
// so ptrace keeps working from inside it.
class Coroutine {
 public:
  explicit Coroutine(std::function<void()> body) : body_(std::move(body)) {}
  ~Coroutine() {
    if (stack_) munmap(stack_, kStackSize);
  }
  Coroutine(const Coroutine&) = delete;
  Coroutine& operator=(const Coroutine&) = delete;

  // Runs the body until it yields or returns.
  Status enter() {
    if (finished_) return Error::msg("internal: entering a finished replay");
    if (!stack_) {
      void* mem = mmap(nullptr, kStackSize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
      if (mem == MAP_FAILED) return Error::from_errno("mmap (the replay's stack)");
      stack_ = mem;
      (void)mprotect(stack_, 4096, PROT_NONE);  // a guard page: overflow faults instead of corrupting
      if (getcontext(&self_) != 0) return Error::from_errno("getcontext");
      self_.uc_stack.ss_sp = stack_;
      self_.uc_stack.ss_size = kStackSize;
      self_.uc_link = &caller_;
      const uintptr_t p = reinterpret_cast<uintptr_t>(this);
      makecontext(&self_, reinterpret_cast<void (*)()>(&Coroutine::entry), 2, static_cast<unsigned>(p >> 32),
                  static_cast<unsigned>(p & 0xffffffffu));
    }
    if (swapcontext(&caller_, &self_) != 0) return Error::from_errno("swapcontext");
    return ok_status();
  }
  void yield() { swapcontext(&self_, &caller_); }
  bool finished() const { return finished_; }

 private:
  static void entry(unsigned hi, unsigned lo) {
    auto* self = reinterpret_cast<Coroutine*>((static_cast<uintptr_t>(hi) << 32) | lo);
    self->body_();
    self->finished_ = true;
  }  // returns to uc_link: the caller

  static constexpr size_t kStackSize = 8 << 20;  // reserved, touched on demand
  std::function<void()> body_;
  void* stack_ = nullptr;
  ucontext_t caller_{}, self_{};
  bool finished_ = false;
};

// See threaded_position.h.
using Position = ThreadedPosition;

// A stop a reverse continue may land on: a breakpoint arrival, or a watched
// access. For an access `at` is the position after it, or, when
// `before_known`, already the one before it (found while single-stepping).
struct Hit {
  Position at;
  std::optional<WatchRange> watch;
  bool before_known = false;
  Tid thread{};  // the accessing thread
};

constexpr uint64_t kMaxReverseStepDistance = 2'000'000;  // instructions stepped to find the one before
// A loop's iteration, stepped from the previous arrival at the same pc.
constexpr uint64_t kMaxStepsFromPreviousArrival = 100'000;

std::string hex_of(uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

}  // namespace

class ThreadedTimeline::Impl final : public SegmentObserver {
 public:
  explicit Impl(const store::RecordingReader& r) : reader(r), checkpoints(r.checkpoints().size()) {}
  ~Impl() override { (void)abort_run(); }

  const store::RecordingReader& reader;
  uint64_t checkpoints;
  std::function<bool()> interrupted;
  std::function<int()> interrupt_fd;
  bool interrupt_requested() const { return interrupted && interrupted(); }
  std::set<uint64_t> user_bps;  // the client's breakpoints
  std::set<WatchRange> user_watches;  // the client's watched pieces
  bool catching = false;              // catch syscall
  std::set<int64_t> caught;           // its numbers; empty: every call
  bool fork_stops = false, vfork_stops = false;  // report_forks
  bool continuing = false;            // the client's forward move is a continue (a step catches nothing)
  uint64_t runs = 0;
  uint64_t skipped = 0;  // segments a reverse search did not replay (write_filter.h)

  // --- the current segment replay
  std::unique_ptr<Coroutine> co;
  uint64_t k = 0;
  std::optional<Result<SegmentOutcome>> outcome;  // once it has ended
  std::vector<SegmentThread> live;
  bool told_threads = false;                      // the first threads_changed (the restore) came
  std::map<uint64_t, uint8_t> inserted;           // int3s in memory: address -> original byte
  std::map<std::pair<int32_t, uint64_t>, uint64_t> counts;  // arrivals per (thread, pc)
  std::set<uint64_t> counted;                     // pcs with a breakpoint since the restore
  // Counted breakpoints on addresses not mapped yet (a library before ld.so
  // maps it), inserted as soon as they can be: nothing ran there before.
  std::set<uint64_t> pending;
  bool executed = false;                          // a thread ran since the restore
  std::vector<WatchRange> armed;                  // DR0.. of every thread in this run
  std::map<std::tuple<int32_t, uint64_t, WatchRange>, uint64_t> wcounts;  // accesses per (thread, pc after, range)
  Position cur;                                   // where the replay is
  // Counter stubs instead of int3s (thread_counters.h) in this run, asked
  // for by start_run's caller; `all_counted`: every wanted pc got one.
  bool use_counters = false;
  // Only the target's pc by a stub, aimed at the target arrival (a
  // collection beside watches or int3-counted breakpoints): its trap comes
  // in order with theirs, and it gives no hits (counts_target_only).
  bool target_stub_only = false;
  bool all_counted = false;
  ThreadCounters counters;
  // Locate and Seek also count these (the ways into a reverse step's
  // target, ways_in.h); the caller sets and clears them around its runs.
  std::set<uint64_t> also_counted;
  // A Locate run for a reverse step finds the ways into `pc` at its
  // restore, from the code as restored: a paused process may hold
  // thread_reach's patch (a jump and int3 fill inside the function), which
  // would decode as other instructions. `at_rsp`: the word at the thread's
  // stack pointer at the target; `except`: a pc whose count is not ours.
  struct WaysWanted {
    uint64_t pc = 0;
    std::optional<uint64_t> at_rsp;
    std::optional<uint64_t> except;
    bool later = false;  // instead: a countable instruction after pc (later_count_site)
  };
  std::optional<WaysWanted> ways_wanted;
  std::vector<WayIn> ways_found;
  uint64_t count_at_resume = 0;  // Locate: the target's count when its thread's last counted resume began

  // --- what the run does
  // Live: the client drives. Collect: hits before `target`. Seek: go to
  // `target` and pause. Locate: which resume of target.tid precedes the
  // arrival `target` (and which arrival since that resume it is).
  // Measure: from that resume, single-step target.tid to that arrival.
  enum class Mode { Live, Collect, Seek, Locate, Measure } mode = Mode::Live;
  std::map<int32_t, uint64_t> resumes;  // counted resumes per thread
  std::set<int32_t> after_trap;          // their next resume is not counted
  uint64_t located_m = 0, located_j = 0, last_m = 0;
  bool measuring = false;
  uint64_t measured = 0, seen = 0;
  // The last of Measure's steps that left the thread in the program's code,
  // not in the syscall buffer's stub (kNone: none did).
  static constexpr uint64_t kNone = ~0ull;
  uint64_t measured_in_program = kNone;
  // Where Measure's single steps end: at target's arrival, when the thread
  // has the registers `measure_want` (a checkpoint's), or at its next
  // counted resume (it stopped at a system call or rdtsc before it).
  enum class MeasureEnd { Arrival, Registers, NextResume } measure_end = MeasureEnd::Arrival;
  user_regs_struct measure_want{};
  // rcx and r11 left out: a call served from the log does not set them as
  // the kernel's `syscall` did.
  static bool same_regs(const user_regs_struct& a, const user_regs_struct& b) {
    return a.rip == b.rip && a.rsp == b.rsp && a.rbp == b.rbp && a.rax == b.rax && a.rbx == b.rbx &&
           a.rdx == b.rdx && a.rsi == b.rsi && a.rdi == b.rdi && a.r8 == b.r8 && a.r9 == b.r9 && a.r10 == b.r10 &&
           a.r12 == b.r12 && a.r13 == b.r13 && a.r14 == b.r14 && a.r15 == b.r15;
  }
  void end_measure() {
    measuring = false;
    step_tid.reset();
    target_reached = true;
    command = Command::Abort;  // unwind the run at its next hook
  }
  bool stop_at_start = false;         // Live: pause at the checkpoint
  Position target;                    // Collect / Seek
  bool at_anchor = false;             // Seek: anchor reached, doing its steps
  size_t steps_done = 0;
  std::vector<Hit> hits;              // Collect: the client's breakpoints and watches hit before target
  bool target_reached = false;

  // SLSDBG_REPLAY_COUNT=trap: no counter stubs at all (int3s count).
  static bool counting_turned_off() {
    static const bool off = [] {
      const char* v = std::getenv("SLSDBG_REPLAY_COUNT");
      return v && std::string(v) == "trap";
    }();
    return off;
  }

  // Whether a run in mode m counts by stubs: no watch (a debug register
  // would see the stub's copy of a moved access), and for a collection a
  // target whose arrivals the stubs order: a segment's end or a breakpoint
  // arrival of the client's.
  bool counters_refused = false;  // a collection is being redone with int3s
  bool counters_fit(Mode m) const {
    if (counting_turned_off() || counters_refused) return false;
    // A window's collection arms no watch before its start (watches armed late, below).
    if (m == Mode::Collect && window_from) return true;
    // Beside watches of any kind: one that fires in a stub's copy of a
    // moved access (a store, or a load for a read or access watch) is moved
    // to the program's code (trapped_here). A collection orders its hits by
    // trap, which counted arrivals do not have: no stubs beside watches there.
    if (m == Mode::Seek || m == Mode::Locate) return true;
    if (!user_watches.empty() || target.watch) return false;
    if (m != Mode::Collect || catching || !target.steps.empty()) return false;
    return target.end || (target.n > 0 && user_bps.count(target.pc) && target.resume_m == 0 && !target.event);
  }

  // A collection up to an arrival at a pc no breakpoint of the client's
  // watches (a reverse step's landing in a hot loop, then a reverse
  // continue with a watch armed): without a stub, its int3 trapped at every
  // visit (4.5 million in one segment of thr_watch_store).
  bool counts_target_only(Mode m) const {
    if (counting_turned_off() || counters_refused || m != Mode::Collect || catching) return false;
    return target.n > 0 && !target.watch && target.steps.empty() && target.resume_m == 0 && !target.event &&
           !target.end && !user_bps.count(target.pc);
  }

  // --- watches armed late (#20: a watched variable a hot loop writes)
  // A watch armed from the restore traps at every access since the
  // checkpoint: ~20 us each, minutes for a variable a thread's loop writes
  // (thr_watch_counter's watch + reverse-continue: over 5 minutes). A run whose target
  // is no watched access arms the client's watches only where it pauses
  // (a seek), or at its window's start (a reverse continue's tail, below);
  // the accesses before are not counted. Positions named after a watched
  // access's count ("watch=") are only made while the counts are exact
  // (`wcounts_exact`); otherwise a forward watch stop is named by the
  // thread's arrival at the pc after the access (name_watch_stop).
  bool watches_late = false;      // this run armed none at its restore
  bool late_armed = false;        // ... and has armed them since
  bool wcounts_exact = true;      // wcounts count every access since the restore
  // A Live watch stop whose count is not exact: named after the move.
  struct UnnamedHit {
    Tid thread;
    uint64_t pc = 0;  // after the access
  };
  std::optional<UnnamedHit> unnamed_hit;
  bool naming = false;  // name_watch_stop's run: the stop is named by its arrival
  // A reverse continue's window (backward_in_tail): a collection that
  // counts its way to `window_from` with no watch armed, then arms them and
  // collects the hits up to its target; `window_pcs` are counted too, so a
  // watched access followed by an arrival at one is named by that arrival.
  std::optional<Position> window_from;
  std::set<uint64_t> window_pcs;
  bool window_open = false;
  size_t collect_cap = SIZE_MAX;  // a collection ends after this many hits
  bool collect_capped = false;

  bool exact_watches = false;     // runs arm at the restore whatever their target
  bool target_watched() const { return target.watch.has_value(); }
  Status arm_late_watches() {
    if (!watches_late || late_armed) return ok_status();
    late_armed = true;
    return armed.empty() ? ok_status() : arm_watches_everywhere();
  }
  Status open_window() {
    TRY(stop_counting());
    window_open = true;
    SLSDBG_DEBUG("replay", "segment %llu: the window opens at %s", (unsigned long long)k, cur.to_string().c_str());
    return arm_late_watches();
  }
  // A collected hit, honouring collect_cap.
  Status add_hit(Hit h) {
    if (window_from && !window_open) return ok_status();
    hits.push_back(std::move(h));
    if (hits.size() < collect_cap) return ok_status();
    collect_capped = true;
    return finish_collect();
  }

  // --- the pause
  enum class Command { Go, Abort };
  Command command = Command::Go;
  std::optional<Tid> step_tid;  // the thread to step by one instruction when it runs
  bool paused = false;
  ThreadedStop stop;

  Status pause(ThreadedStop s) {
    if (command == Command::Abort) return Error::msg("replay aborted");
    TRY(stop_counting());
    TRY(arm_late_watches());
    step_tid.reset();
    stop = std::move(s);
    paused = true;
    co->yield();
    paused = false;
    if (command == Command::Abort) return Error::msg("replay aborted");
    return ok_status();
  }
  Status finish_collect() {
    target_reached = true;
    command = Command::Abort;  // unwind the run: the process is not needed any more
    return Error::msg("replay aborted");
  }

  // Ends the current run (its process is killed as its stack unwinds).
  Status abort_run() {
    if (co && !co->finished()) {
      command = Command::Abort;
      while (!co->finished()) TRY(co->enter());
    }
    co.reset();
    live.clear();
    inserted.clear();
    paused = false;
    command = Command::Go;
    return ok_status();
  }

  Status start_run(uint64_t seg, Mode m) {
    TRY(abort_run());
    k = seg;
    mode = m;
    outcome.reset();
    counts.clear();
    counted.clear();
    resumes.clear();
    after_trap.clear();
    measuring = false;
    measured = seen = 0;
    measured_in_program = kNone;
    last_m = 0;
    told_threads = false;
    pending.clear();
    executed = false;
    at_anchor = false;
    steps_done = 0;
    hits.clear();
    target_reached = false;
    step_tid.reset();
    wcounts.clear();
    watches_late = window_from.has_value() ||
                   ((m == Mode::Seek || m == Mode::Locate || m == Mode::Measure) && !target_watched() && !exact_watches);
    late_armed = false;
    wcounts_exact = !watches_late;
    window_open = false;
    collect_capped = false;
    unnamed_hit.reset();
    use_counters = counters_fit(m);
    target_stub_only = !use_counters && counts_target_only(m);
    counters = ThreadCounters{};  // the old process, and its stubs, are gone
    all_counted = false;
    count_at_resume = 0;
    armed = watch_set();
    cur = Position{seg};
    runs++;
    co = std::make_unique<Coroutine>([this, seg] { outcome = replay_threaded_segment(reader, CheckpointId(seg), *this); });
    return ok_status();
  }

  // Runs until a pause or the run's end.
  Status drive() {
    const process::ProgramRun program_runs;  // a user's interrupt may cut its long waits (wait_cut.h)
    TRY(co->enter());
    return ok_status();
  }

  std::set<uint64_t> wanted() const {
    std::set<uint64_t> w = user_bps;
    if (mode == Mode::Measure) return {};  // it goes by single steps
    if (mode != Mode::Live && target.n > 0 && !target.watch) w.insert(target.pc);
    if (mode == Mode::Locate || mode == Mode::Seek) w.insert(also_counted.begin(), also_counted.end());
    if (mode == Mode::Collect && window_from) {
      w.insert(window_from->pc);
      w.insert(window_pcs.begin(), window_pcs.end());
    }
    return w;
  }

  // The ranges a run arms: the client's, and the one its target counts.
  std::vector<WatchRange> watch_set() const {
    std::vector<WatchRange> w(user_watches.begin(), user_watches.end());
    if (mode != Mode::Live && target.watch && !user_watches.count(*target.watch)) w.push_back(*target.watch);
    return w;
  }
  Status arm_watches_everywhere() {
    for (SegmentThread& t : live) TRY(arm_thread_watches(t.task->raw_tid(), armed));
    return ok_status();
  }
  unsigned slot_bit(const WatchRange& w) const {
    for (size_t i = 0; i < armed.size(); i++)
      if (armed[i] == w) return 1u << i;
    return 0;
  }

  process::Task* any_task() {
    for (SegmentThread& t : live)
      if (t.task) return t.task;
    return nullptr;
  }

  Status insert_at(uint64_t addr) {
    if (inserted.count(addr)) return ok_status();
    process::Task* t = any_task();
    if (!t) return Error::msg("no live thread");
    uint8_t orig = 0;
    TRY(t->read_memory(RemoteAddr(addr), {&orig, 1}));
    TRY(t->write_memory(RemoteAddr(addr), {&kInt3, 1}));
    inserted[addr] = orig;
    return ok_status();
  }
  // Called at every resume: breakpoints waiting for their code to be
  // mapped go in; an int3 a new mapping replaced (ld.so maps a library, then
  // maps its segments over it with MAP_FIXED) goes in again. One 1-byte
  // read per breakpoint and resume.
  void refresh_breakpoints() {
    for (auto it = pending.begin(); it != pending.end();)
      it = insert_at(*it).ok() ? pending.erase(it) : std::next(it);
    process::Task* t = any_task();
    if (!t) return;
    for (auto it = inserted.begin(); it != inserted.end();) {
      uint8_t now = 0;
      if (!t->read_memory(RemoteAddr(it->first), {&now, 1}).ok()) {
        pending.insert(it->first);  // unmapped again
        it = inserted.erase(it);
        continue;
      }
      if (now != kInt3) {
        SLSDBG_DEBUG("replay", "segment %llu: breakpoint at 0x%llx replaced by a mapping; in again", (unsigned long long)k,
                     (unsigned long long)it->first);
        it->second = now;
        (void)t->write_memory(RemoteAddr(it->first), {&kInt3, 1});
      }
      ++it;
    }
  }

  Status remove_at(uint64_t addr) {
    auto it = inserted.find(addr);
    if (it == inserted.end()) return ok_status();
    process::Task* t = any_task();
    if (t) TRY(t->write_memory(RemoteAddr(addr), {&it->second, 1}));
    inserted.erase(it);
    return ok_status();
  }

  Tid running_thread_of(uint64_t seg) {
    auto st = reader.process_state(CheckpointId(seg));
    if (st.ok() && st->running_tid) return Tid(st->running_tid);
    return live.empty() ? Tid{} : live.front().recorded;
  }

  ThreadedStop plain_stop(Tid t, StopCause cause = StopCause::Step) {
    ThreadedStop s;
    s.stop.cause = cause;
    s.thread = t;
    for (SegmentThread& th : live)
      if (th.recorded == t)
        if (auto r = th.task->regs(); r.ok()) s.stop.pc = r->rip;
    return s;
  }

  // --- SegmentObserver
  // A logged system call's entry or return: a catch syscall stop, a hit of a
  // reverse continue's collection, or the anchor of a position.
  Status at_syscall(const SegmentThread& th, size_t index, const store::Event& ev, bool entry) override {
    if (command == Command::Abort) return Error::msg("replay aborted");
    if (mode == Mode::Locate || mode == Mode::Measure) return ok_status();
    Position p{k, false, th.recorded};
    p.event = index;
    p.entry = entry;
    bool catches = catching && (caught.empty() || caught.count(ev.syscall_no));
    ThreadedStop s = plain_stop(th.recorded, StopCause::Breakpoint);
    s.syscall_no = ev.syscall_no;
    s.syscall_entry = entry;
    if (!entry && (fork_stops || vfork_stops) && may_fork(ev)) {
      // clone3's flags are in its struct clone_args, still in the caller's frame.
      const ForkKind kind = fork_kind(ev, [&th](uint64_t addr) -> std::optional<uint64_t> {
        uint64_t word = 0;
        if (!th.task->read_memory(RemoteAddr(addr), {reinterpret_cast<uint8_t*>(&word), sizeof word}).ok())
          return std::nullopt;
        return word;
      });
      if ((kind == ForkKind::Fork && fork_stops) || (kind == ForkKind::VFork && vfork_stops)) {
        s.fork_child = static_cast<int32_t>(ev.result);
        s.vfork = kind == ForkKind::VFork;
        s.syscall_no.reset();
        catches = true;
      }
    }
    if (mode == Mode::Live) {
      if (!catches || !continuing) return ok_status();
      cur = p;
      return pause(std::move(s));
    }
    if (!at_anchor && p.same_anchor(target)) {
      cur = p;
      return anchor_reached(std::move(s));
    }
    if (mode == Mode::Collect && catches) return add_hit(Hit{p, {}, false, th.recorded});
    return ok_status();
  }

  Status threads_changed(const std::vector<SegmentThread>& threads) override {
    live = threads;
    if (told_threads) return ok_status();
    told_threads = true;
    // The restore: breakpoints and watches in, then maybe the checkpoint's stop.
    if (mode == Mode::Locate && ways_wanted && any_task()) {
      ways_found = ways_wanted->later ? later_site(ways_wanted->pc) : ways_into(ways_wanted->pc, ways_wanted->at_rsp);
      if (ways_wanted->except)
        std::erase_if(ways_found, [this](const WayIn& w) { return w.count_at == *ways_wanted->except; });
      for (const WayIn& w : ways_found) also_counted.insert(w.count_at);
    }
    const std::set<uint64_t> want = wanted();
    std::set<uint64_t> by_stub;
    if ((use_counters || target_stub_only) && !want.empty() && any_task()) {
      std::vector<uint64_t> thread_pcs;
      for (const SegmentThread& t : live)
        if (Result<user_regs_struct> r = t.task->regs(); r.ok()) thread_pcs.push_back(r->rip);
      const std::set<uint64_t> stubbed = target_stub_only ? std::set<uint64_t>{target.pc} : want;
      const bool wide = wide_sites();
      // A stub of several instructions keeps clear of the next checkpoint's
      // pcs: the patched breakpoint that reaches it yields to a stub, and
      // the perf breakpoint standing in misses in a hot loop ("checkpoint N
      // not reached").
      by_stub = counters.install(*any_task(), stubbed, thread_pcs, wide, wide ? next_checkpoint_pcs() : std::vector<uint64_t>{});
      all_counted = by_stub.size() == want.size();
      if (window_from) {
        if (by_stub.count(window_from->pc)) counters.aim(window_from->tid, window_from->pc, window_from->n);
      } else if (target.n > 0 && !target.watch && by_stub.count(target.pc)) {
        counters.aim(target.tid, target.pc, target.n);
      }
    }
    for (uint64_t a : want) {
      counted.insert(a);
      if (by_stub.count(a)) continue;
      if (!insert_at(a).ok()) pending.insert(a);
    }
    // Stubs and int3s together cannot order their arrivals, which only a
    // collection needs: a seek or a locate goes by each pc's count.
    if (!all_counted && mode == Mode::Collect && !target_stub_only && !window_from) TRY(stop_counting());
    if (!armed.empty() && !watches_late) TRY(arm_watches_everywhere());
    if (mode == Mode::Live) {
      if (stop_at_start) return pause(plain_stop(running_thread_of(k)));
      return ok_status();
    }
    if (!target.is_start() || target.k != k) return ok_status();
    return anchor_reached(plain_stop(running_thread_of(k)));
  }

  bool step_on_resume(Tid thread, bool own) override {
    executed = true;
    refresh_breakpoints();
    if (!counters.empty() && any_task())
      if (Status s = counters.switch_to(*any_task(), thread); !s.ok() && pending_status.ok()) pending_status = std::move(s);
    if (!after_trap.erase(thread.value) && own) {
      const uint64_t m = ++resumes[thread.value];
      if (thread == target.tid && mode == Mode::Locate) count_at_resume = counters.count(thread, target.pc);
      if (thread == target.tid && command != Command::Abort) {
        if (mode == Mode::Measure && measuring && measure_end == MeasureEnd::NextResume && m == target.resume_m + 1) {
          end_measure();
          return false;
        }
        if (mode == Mode::Measure && m == target.resume_m) {
          measuring = true;
          step_tid = thread;
          if (measure_end == MeasureEnd::Registers || (measure_end == MeasureEnd::Arrival && located_j == 1))
            for (SegmentThread& t : live)
              if (t.recorded == thread)
                if (auto r = t.task->regs();
                    r.ok() && (measure_end == MeasureEnd::Registers ? same_regs(*r, measure_want)
                                                                    : r->rip == target.pc && !target.watch)) {
                  // Already there: no instruction since the resume (an
                  // arrival at the pc a call returns to).
                  end_measure();
                  return false;
                }
        } else if ((mode == Mode::Seek || mode == Mode::Collect) && !at_anchor && target.resume_m == m) {
          cur = Position{k, false, thread, 0, 0, {}, m};
          pending_status = anchor_reached(plain_stop(thread));
        }
      }
    }
    return step_tid && *step_tid == thread;
  }
  // An error from a hook that returns no Status, given at the next trap.
  Status pending_status = ok_status();

  // Collect/Seek arrived at the target's anchor.
  Status anchor_reached(ThreadedStop s) {
    if (mode != Mode::Collect || !target.steps.empty()) TRY(stop_counting());  // steps go through the program's code
    if (mode == Mode::Collect) {
      if (!target.steps.empty() && target.n > 0 && !target.watch && user_bps.count(target.pc))
        hits.push_back(Hit{cur, {}, false, cur.tid});
      if (target.steps.empty()) return finish_collect();
      // The steps too: a watched access among them is a hit before target.
      at_anchor = true;
      steps_done = 0;
      step_tid = target.steps[0];
      return ok_status();
    }
    if (target.steps.empty()) return pause(std::move(s));
    at_anchor = true;
    steps_done = 0;
    step_tid = target.steps[0];
    return ok_status();
  }

  Status arrived_at_breakpoint(const SegmentThread& th, uint64_t addr) {
    const uint64_t n = ++counts[{th.recorded.value, addr}];
    if (mode == Mode::Locate && th.recorded == target.tid && addr == target.pc) {
      const uint64_t m = resumes[th.recorded.value];
      located_j = m == last_m ? located_j + 1 : 1;
      last_m = m;
      if (n == target.n) {
        located_m = m;
        if (!counters.empty()) TRY(counters.flush(*th.task));  // the stubs' counts up to here (ways_in)
        return finish_collect();
      }
      return ok_status();
    }
    SLSDBG_DEBUG("replay", "segment %llu: thread %d's arrival %llu at 0x%llx", (unsigned long long)k, th.recorded.value,
                 (unsigned long long)n, (unsigned long long)addr);
    cur = Position{k, false, th.recorded, addr, n, {}};
    ThreadedStop s;
    s.stop.cause = StopCause::Breakpoint;
    s.stop.pc = addr;
    s.thread = th.recorded;
    if (mode == Mode::Live) return user_bps.count(addr) ? pause(s) : ok_status();
    // A window may open at the target's own anchor (its steps follow).
    if (mode == Mode::Collect && window_from && !window_open && cur.same_anchor(*window_from)) TRY(open_window());
    if (!at_anchor && cur.same_anchor(target)) return anchor_reached(s);
    if (mode == Mode::Collect && user_bps.count(addr)) return add_hit(Hit{cur, {}, false, cur.tid});
    return ok_status();
  }

  // Thread t just after an access, its next instruction at pc (counted): its
  // next arrival there, the same state.
  Position arrival_after(Tid t, uint64_t pc) { return Position{k, false, t, pc, counts[{t.value, pc}] + 1, {}}; }

  static ThreadedStop watch_stop(Tid t, const WatchRange& w, uint64_t pc) {
    ThreadedStop s;
    s.stop.cause = StopCause::Watchpoint;
    s.stop.pc = pc;
    s.stop.watch_addr = w.addr;
    s.stop.watch_kind = w.kind;
    s.thread = t;
    return s;
  }

  // A trap of `th` after an instruction touched the watched slots `fired`.
  // Every range's count goes up (positions name the n-th access); `asked`:
  // the trap ends a single step asked for, which stays the stop.
  Status arrived_at_watch(const SegmentThread& th, unsigned fired, uint64_t pc, bool asked) {
    if (asked && mode == Mode::Collect && at_anchor)  // cur is still before the access
      for (size_t i = 0; i < armed.size(); i++)
        if ((fired & (1u << i)) && user_watches.count(armed[i])) {
          hits.push_back(Hit{cur, armed[i], true, th.recorded});
          break;
        }
    std::optional<Position> user_hit;
    for (size_t i = 0; i < armed.size(); i++) {
      if (!(fired & (1u << i))) continue;
      const WatchRange& w = armed[i];
      const uint64_t n = ++wcounts[{th.recorded.value, pc, w}];
      Position p{k, false, th.recorded, pc, n, {}, 0, w};
      if (mode == Mode::Locate) {
        if (target.watch == w && th.recorded == target.tid && pc == target.pc) {
          const uint64_t m = resumes[th.recorded.value];
          located_j = m == last_m ? located_j + 1 : 1;
          last_m = m;
          if (n == target.n) {
            located_m = m;
            // The counts of the run since the thread's last resume are
            // its too (the ways into the pc after the access).
            if (!counters.empty()) TRY(counters.flush(*th.task));
            return finish_collect();
          }
        }
        continue;
      }
      if (asked) continue;
      if ((mode == Mode::Seek || mode == Mode::Collect) && !at_anchor && p.same_anchor(target)) {
        cur = p;
        return anchor_reached(watch_stop(th.recorded, w, pc));
      }
      if (!user_hit && user_watches.count(w)) user_hit = p;
    }
    if (asked || !user_hit) return ok_status();
    SLSDBG_DEBUG("replay", "segment %llu: thread %d's access %llu to 0x%llx (pc 0x%llx)", (unsigned long long)k,
                 th.recorded.value, (unsigned long long)user_hit->n, (unsigned long long)user_hit->watch->addr,
                 (unsigned long long)pc);
    if (mode == Mode::Live) {
      if (naming) cur = arrival_after(th.recorded, pc);
      else if (!wcounts_exact) unnamed_hit = UnnamedHit{th.recorded, pc};
      else cur = *user_hit;
      return pause(watch_stop(th.recorded, *user_hit->watch, pc));
    }
    if (mode == Mode::Collect && window_from) {
      // Named by the thread's arrival at the pc after the access when that
      // pc is counted (n 0: not counted).
      const Position a = counted.count(pc) ? arrival_after(th.recorded, pc) : Position{k, false, th.recorded, pc, 0, {}};
      return add_hit(Hit{a, user_hit->watch, false, th.recorded});
    }
    if (mode == Mode::Collect) return add_hit(Hit{*user_hit, user_hit->watch, false, th.recorded});
    return ok_status();
  }

  Status step_done(const SegmentThread& th) {
    cur.steps.push_back(th.recorded);
    ThreadedStop s = plain_stop(th.recorded);
    if (mode == Mode::Live) return pause(s);
    if (mode == Mode::Seek && at_anchor) {
      if (++steps_done == target.steps.size()) {
        at_anchor = false;
        return pause(s);
      }
      step_tid = target.steps[steps_done];
    }
    if (mode == Mode::Collect && at_anchor) {
      // A breakpoint the steps arrive at before the target is a hit too
      // (the steps of a reverse step's position run whole functions).
      if (++steps_done < target.steps.size() && !user_bps.empty())
        if (Result<user_regs_struct> r = th.task->regs(); r.ok() && user_bps.count(r->rip))
          hits.push_back(Hit{cur, {}, false, th.recorded});
      if (steps_done == target.steps.size()) return finish_collect();
      step_tid = target.steps[steps_done];
    }
    return ok_status();
  }

  Result<std::optional<process::WaitResult>> trapped(const SegmentThread& th,
                                                      const process::WaitResult& w) override {
    TRY(std::exchange(pending_status, ok_status()));
    auto r = trapped_here(th, w);
    if (r.ok() && !*r) after_trap.insert(th.recorded.value);  // it resumes next: not one of its own resumes
    return r;
  }

  Result<std::optional<process::WaitResult>> trapped_here(const SegmentThread& th, const process::WaitResult& w) {
    if (command == Command::Abort) return Error::msg("replay aborted");
    siginfo_t si = TRY(th.task->siginfo());
    const bool asked = si.si_code != SI_KERNEL && step_tid && *step_tid == th.recorded;
    const unsigned fired = !armed.empty() && si.si_code != SI_KERNEL
                               ? lost_dr6_watch(TRY(take_fired_watches(th.task->raw_tid())), si, asked)
                               : 0u;
    // A hardware trap that is not a watch of ours: the breakpoint reaching
    // the next checkpoint (thread_reach.h). The segment's replay handles it.
    if (si.si_code == TRAP_HWBKPT && !fired) return std::optional<process::WaitResult>(w);
    if (measuring && asked) {
      user_regs_struct regs = TRY(th.task->regs());
      measured++;
      if (!in_sysbuf_stub(regs.rip)) measured_in_program = measured;
      if (measure_end == MeasureEnd::Registers && same_regs(regs, measure_want)) return finish_collect().take_error();
      const bool there = measure_end == MeasureEnd::Arrival && regs.rip == target.pc &&
                         (!target.watch || (fired & slot_bit(*target.watch)));
      if (there && ++seen == located_j) return finish_collect().take_error();
      if (measured > kMaxReverseStepDistance)
        return Error::msg("the instruction before this breakpoint arrival is more than " +
                          std::to_string(kMaxReverseStepDistance) + " instructions after the thread's last system call");
      return std::optional<process::WaitResult>();  // step_tid stays: the next resume steps again
    }
    user_regs_struct r = TRY(th.task->regs());
    std::optional<uint64_t> shown;  // the program's pc of a thread left among a stub's moved instructions
    if (fired && !counters.empty()) {
      // A watch that fired in a counter stub's copy of the counted
      // instruction: the thread goes on from the program's code after it.
      // After one of several moved instructions, it goes on in the stub,
      // and is where that instruction was (stop_counting puts it there).
      bool inside = false;
      if (const std::optional<uint64_t> end = counters.site_end_at(r.rip, inside)) {
        r.rip = *end;
        TRY(th.task->set_regs(r));
      } else if (inside) {
        shown = counters.moved_from(r.rip);
        if (!shown)
          return Error::msg("a watched access inside a counter stub at " + hex_addr(r.rip) +
                            " (a moved string instruction): not supported yet");
      }
    }
    if (si.si_code == SI_KERNEL && !counters.empty())
      if (const std::optional<uint64_t> pc = counters.reached(r.rip)) {
        TRY(arrived_by_counter(th, *pc, r));
        return go_on(th);
      }
    if (si.si_code == SI_KERNEL) {
      const uint64_t addr = r.rip - 1;
      if (!inserted.count(addr)) {
        SLSDBG_DEBUG("replay", "thread %d: an int3 not ours at 0x%llx", th.recorded.value, (unsigned long long)addr);
        return std::optional<process::WaitResult>(w);  // the program's own int3
      }
      r.rip = addr;
      TRY(th.task->set_regs(r));
      TRY(arrived_at_breakpoint(th, addr));
    } else {
      if (fired) {
        TRY(arrived_at_watch(th, fired, shown.value_or(r.rip), asked));
        if (!asked) {
          // On an int3 of ours after the access: the thread arrives there
          // when it runs on, and its int3 counts that arrival, as a counter
          // stub there would (stepping over it lost the arrival).
          if (inserted.count(TRY(th.task->regs()).rip)) return std::optional<process::WaitResult>();
          return go_on(th);
        }
      }
      if (!asked) return std::optional<process::WaitResult>(w);
      step_tid.reset();
      TRY(step_done(th));
    }
    return go_on(th);
  }

  // The watches that fired for a trap whose DR6 said `fired`. This VM now
  // and then delivers a data watch's #DB with DR6 empty: the kernel then
  // takes it for an icebp (TRAP_BRKPT) and no watch bit reaches us
  // (thr_watch_store: about once in 10^5 traps, right after a store to
  // the watched word, and the segment "diverged" with a SIGTRAP). A
  // TRAP_BRKPT nobody stepped for, with one watch armed, is that watch.
  unsigned lost_dr6_watch(unsigned fired, const siginfo_t& si, bool asked) const {
    if (fired || asked || si.si_code != TRAP_BRKPT || armed.size() != 1 || (watches_late && !late_armed)) return fired;
    SLSDBG_DEBUG("replay", "a trap with DR6 empty: taken as the one watch armed");
    return slot_bit(armed[0]);
  }

  // The paused thread goes on: over the breakpoint it sits on, if any.
  Result<std::optional<process::WaitResult>> go_on(const SegmentThread& th) {
    for (;;) {
      user_regs_struct r = TRY(th.task->regs());
      auto it = inserted.find(r.rip);
      if (it == inserted.end()) return std::optional<process::WaitResult>();
      const uint64_t addr = r.rip;
      TRY(th.task->write_memory(RemoteAddr(addr), {&it->second, 1}));
      TRY(th.task->singlestep());
      process::WaitResult w = TRY(th.task->wait());
      if (inserted.count(addr)) TRY(th.task->write_memory(RemoteAddr(addr), {&kInt3, 1}));
      if (w.kind != process::StopKind::SignalDelivery || w.signo != SIGTRAP) return std::optional(w);
      siginfo_t si = TRY(th.task->siginfo());
      if (si.si_code != TRAP_TRACE && si.si_code != TRAP_BRKPT && si.si_code != TRAP_HWBKPT) return std::optional(w);
      const bool asked = step_tid && *step_tid == th.recorded;
      if (!armed.empty())  // the instruction under the breakpoint may touch a watched range
        if (const unsigned fired = TRY(take_fired_watches(th.task->raw_tid())); fired) {
          TRY(arrived_at_watch(th, fired, TRY(th.task->regs()).rip, asked));
          if (command == Command::Abort) return Error::msg("replay aborted");
        }
      if (!asked) return std::optional<process::WaitResult>();
      step_tid.reset();
      TRY(step_done(th));  // the step asked for was this one; then maybe another
      if (command == Command::Abort) return Error::msg("replay aborted");
      if (step_tid && *step_tid == th.recorded) {
        r = TRY(th.task->regs());
        if (!inserted.count(r.rip)) return std::optional<process::WaitResult>();
      }
    }
  }

  // The patch is invisible while no int3 of ours lies in its bytes and
  // nothing steps; it comes out at our first trap. A write watch may fire
  // in the trampoline's copy of a moved instruction: the segment's replay
  // shows the thread at the program's pc of that instruction
  // (PatchedBreakpoint::program_pc). Without the patch, the perf breakpoint
  // stands in, which the kernel throttles in a hot loop and then runs past
  // the checkpoint (xz -T2, docs/real-programs.md).
  bool allows_patch(uint64_t begin, uint64_t end) override {
    // The counter stubs stay through the last stretch to the checkpoint
    // (an int3 there would take the patch out), unless the jump would
    // overwrite one.
    if (counters.overlaps(begin, end)) return false;
    if (mode == Mode::Measure || step_tid) return false;
    // Read and access watches too: the trampoline reads no program memory
    // but the words a refitted patch compares, which keep clear of them
    // (reads_watched). Before, any read watch kept the patch out, and the
    // perf breakpoint's #DB at every visit ran for minutes in a hot loop.
    return inserted.lower_bound(begin) == inserted.lower_bound(end);
  }
  bool reads_watched(uint64_t addr, uint64_t len) override {
    for (const WatchRange& w : armed)
      if (w.kind != WatchKind::Write && w.addr < addr + len && addr < w.addr + w.len) return true;
    return false;
  }

  Status lift_breakpoints() override {
    TRY(stop_counting());
    process::Task* t = any_task();
    if (!t) return ok_status();
    for (auto& [addr, orig] : inserted) TRY(t->write_memory(RemoteAddr(addr), {&orig, 1}));
    return ok_status();
  }
  Status insert_breakpoints() override {
    process::Task* t = any_task();
    if (!t) return ok_status();
    for (auto& [addr, orig] : inserted) TRY(t->write_memory(RemoteAddr(addr), {&kInt3, 1}));
    return ok_status();
  }

  Status at_history_end(const store::Event* exit) override {
    if (command == Command::Abort) return Error::msg("replay aborted");
    TRY(stop_counting());
    cur = Position{k, true};
    ThreadedStop s;
    s.thread = exit ? exit->tid : (live.empty() ? Tid{} : live.front().recorded);
    if (exit && exit->signo) {
      s.stop.cause = StopCause::Exited;
      s.stop.signo = exit->signo;
    } else if (exit) {
      s.stop.cause = StopCause::Exited;
      s.stop.exit_status = exit->exit_status;
    } else {
      s.stop.cause = StopCause::HistoryEnd;
    }
    if (mode == Mode::Collect) return finish_collect();
    if (mode == Mode::Measure && measuring && measure_end == MeasureEnd::NextResume) {
      end_measure();  // the thread's exit call: the last instruction it stepped to
      return ok_status();
    }
    if (mode == Mode::Seek && !target.end) return Error::msg("the position was not found in segment " + std::to_string(k));
    for (;;) TRY(pause(s));  // forward moves stay here; another move aborts the run
  }

  // The aimed arrival's stub trapped (thread_counters.h): th stands in the
  // stub, at pc's arrival, its instruction not run yet.
  Status arrived_by_counter(const SegmentThread& th, uint64_t pc, user_regs_struct r) {
    TRY(counters.flush(*th.task));
    const uint64_t n = counters.count(th.recorded, pc);
    SLSDBG_DEBUG("replay", "segment %llu: thread %d's arrival %llu at 0x%llx (counted in-process)", (unsigned long long)k,
                 th.recorded.value, (unsigned long long)n, (unsigned long long)pc);
    if (mode == Mode::Locate) {
      located_m = resumes[th.recorded.value];
      located_j = n - count_at_resume;
      return finish_collect();
    }
    if (mode == Mode::Collect && window_from && !window_open) {
      r.rip = pc;  // as below: the stubs go, pc's own instruction next
      TRY(th.task->set_regs(r));
      cur = Position{k, false, th.recorded, pc, n, {}};
      if (!cur.same_anchor(*window_from)) return Error::msg("internal: a window's counted start was not its own");
      TRY(open_window());
      if (at_anchor || !cur.same_anchor(target)) return ok_status();
      ThreadedStop s;
      s.stop.cause = StopCause::Breakpoint;
      s.stop.pc = pc;
      s.thread = th.recorded;
      return anchor_reached(s);
    }
    if (mode == Mode::Collect) return finish_collect();
    r.rip = pc;  // the stubs go: the thread runs pc's own instruction next
    TRY(th.task->set_regs(r));
    TRY(stop_counting());
    cur = Position{k, false, th.recorded, pc, n, {}};
    ThreadedStop s;
    s.stop.cause = StopCause::Breakpoint;
    s.stop.pc = pc;
    s.thread = th.recorded;
    if (cur.same_anchor(target)) return anchor_reached(s);
    return ok_status();
  }

  // The stubs out, their counts kept as the int3 counts go on from here:
  // each counted pc still wanted gets its int3.
  Status stop_counting() {
    if (counters.empty()) return ok_status();
    process::Task* t = any_task();
    if (!t) return Error::msg("no live thread");
    // A thread a watch left among a stub's moved instructions stands at
    // the program's copy of the next one once the code is back.
    std::vector<std::pair<process::Task*, uint64_t>> moved;
    for (SegmentThread& th : live)
      if (Result<user_regs_struct> r = th.task->regs(); r.ok())
        if (std::optional<uint64_t> pc = counters.moved_from(r->rip)) moved.emplace_back(th.task, *pc);
    TRY(counters.remove_all(*t));
    for (auto& [task, pc] : moved) {
      user_regs_struct r = TRY(task->regs());
      r.rip = pc;
      TRY(task->set_regs(r));
    }
    for (const auto& [key, n] : counters.totals()) counts[key] = n;
    for (uint64_t a : counted)
      if (!inserted.count(a) && !pending.count(a) && !insert_at(a).ok()) pending.insert(a);
    return ok_status();
  }

  // --- moves

  // Brings the memory's int3s in line with the client's breakpoints before
  // the replay runs on. A breakpoint added after the replay ran has no exact
  // arrival count: the replay is redone from the checkpoint with it in.
  Status sync_breakpoints(std::optional<Tid> stepping) {
    bool redo = false;
    for (uint64_t a : user_bps) {
      if (counted.count(a)) {
        if (!pending.count(a) && !insert_at(a).ok()) pending.insert(a);
        continue;
      }
      if (!executed) {
        counted.insert(a);
        if (!insert_at(a).ok()) pending.insert(a);
      } else if (!insert_at(a).ok()) {
        // Not mapped now, so never run since the restore (FIXME: unless a
        // dlclose unmapped it): its count starts exact.
        counted.insert(a);
        pending.insert(a);
      } else {
        redo = true;
      }
    }
    if (redo) {
      SLSDBG_DEBUG("replay", "a breakpoint was added inside segment %llu: replaying it again to count arrivals",
                   (unsigned long long)k);
      TRY(seek(cur));
    }
    uint64_t stepping_pc = 0;
    if (stepping)
      for (SegmentThread& t : live)
        if (t.recorded == *stepping)
          if (auto r = t.task->regs(); r.ok()) stepping_pc = r->rip;
    for (auto it = counted.begin(); it != counted.end();) {
      if (user_bps.count(*it)) {
        ++it;
        continue;
      }
      TRY(remove_at(*it));
      pending.erase(*it);
      // GDB steps over its breakpoint by lifting it for one step of the
      // thread on it: that arrival is counted already.
      if (*it == stepping_pc) {
        ++it;
        continue;
      }
      it = counted.erase(it);
    }
    return ok_status();
  }

  // The same for watches: the debug registers of every thread take the
  // client's ranges at the restore; one added after the replay ran has no
  // exact access count, so the segment is replayed again with it armed.
  Status sync_watches() {
    bool missing = false;
    for (const WatchRange& w : user_watches)
      if (!slot_bit(w)) missing = true;
    if (!missing) return ok_status();
    if (!executed) {
      armed.assign(user_watches.begin(), user_watches.end());
      return arm_watches_everywhere();
    }
    SLSDBG_DEBUG("replay", "a watchpoint was added inside segment %llu: replaying it again to count accesses",
                 (unsigned long long)k);
    return seek(cur);
  }

  // Runs segment `seg` collecting the client's breakpoint hits before `t`.
  // With counter stubs, the last arrival comes from their windows (int3
  // hits, after the stubs came out for the segment's last stretch, are
  // later); when it is ambiguous, the segment is collected again by int3s.
  Result<std::vector<Hit>> collect(uint64_t seg, const Position& t) {
    target = t;
    TRY(start_run(seg, Mode::Collect));
    const bool by_counters = use_counters;
    TRY(drive());
    if (paused) return Error::msg("internal: a collecting replay paused");
    TRY(check_outcome(/*aborted_ok=*/true));
    // A window's stubs went at its start: its hits are all by trap.
    if (!by_counters || !all_counted || !hits.empty() || window_from) return hits;
    std::optional<ThreadCounters::Arrival> left_out;
    if (t.n > 0) left_out = ThreadCounters::Arrival{t.tid, t.pc, t.n};
    Result<std::optional<ThreadCounters::Arrival>> last = counters.last_arrival(left_out);
    if (!last.ok()) {
      SLSDBG_DEBUG("replay", "segment %llu: %s; collecting again with int3s", (unsigned long long)seg,
                   last.error().message.c_str());
      counters_refused = true;
      Result<std::vector<Hit>> again = collect(seg, t);
      counters_refused = false;
      return again;
    }
    if (*last) hits.push_back(Hit{Position{seg, false, (*last)->thread, (*last)->pc, (*last)->n, {}}, {}, false, (*last)->thread});
    return hits;
  }

  // Goes to `t`, pausing there.
  Status seek(Position t) {
    target = std::move(t);
    TRY(start_run(target.k, Mode::Seek));
    TRY(drive());
    if (!paused) {
      TRY(check_outcome(false));
      return Error::msg("position not reached in segment " + std::to_string(target.k));
    }
    return ok_status();
  }

  Status check_outcome(bool aborted_ok) {
    if (!outcome) return Error::msg("internal: the replay ended without an outcome");
    if (!outcome->ok()) {
      if (aborted_ok && target_reached) return ok_status();
      return outcome->error();
    }
    if ((*outcome)->end == SegmentEnd::Diverged && (*outcome)->divergence)
      return Error::msg("replay diverged in segment " + std::to_string(k) + ": expected " +
                        (*outcome)->divergence->expected + ", got " + (*outcome)->divergence->actual);
    return ok_status();
  }

  Result<ThreadedStop> goto_checkpoint(uint64_t seg) {
    if (seg >= checkpoints)
      return Error::msg("no checkpoint " + std::to_string(seg) + " (the recording has " + std::to_string(checkpoints) + ")");
    stop_at_start = true;
    TRY(start_run(seg, Mode::Live));
    TRY(drive());
    stop_at_start = false;
    if (!paused) {
      TRY(check_outcome(false));
      return Error::msg("checkpoint " + std::to_string(seg) + " could not be restored");
    }
    return stop;
  }

  // A named position (threaded_position.h). A failed seek goes back to
  // where the client was, so a bad name never moves it.
  Result<ThreadedStop> goto_position(const Position& p) {
    if (p.k >= checkpoints)
      return Error::msg("no checkpoint " + std::to_string(p.k) + " (the recording has " + std::to_string(checkpoints) + ")");
    if (p.end && p.k + 1 < checkpoints) return goto_checkpoint(p.k + 1);
    if (p.end) {  // the end of history: the last segment run through, nothing set to stop it
      std::set<uint64_t> bps = std::exchange(user_bps, {});
      std::set<WatchRange> watches = std::exchange(user_watches, {});
      const bool catches = std::exchange(catching, false);
      Result<ThreadedStop> there = goto_checkpoint(p.k);
      if (there.ok()) there = forward(Motion::Continue, there->thread);
      user_bps = std::move(bps);
      user_watches = std::move(watches);
      catching = catches;
      return there;
    }
    if (p.is_start() && p.steps.empty()) return goto_checkpoint(p.k);
    const Position from = cur;
    goto_seek = true;
    Status st = seek(p);
    goto_seek = false;
    if (st.ok()) return stop;
    Error e = st.take_error().context("moment " + p.to_string());
    const bool back = from.is_start() && from.steps.empty() ? goto_checkpoint(from.k).ok() : seek(from).ok();
    if (!back) (void)goto_checkpoint(from.k);
    return e;
  }

  Result<ThreadedStop> forward(Motion motion, Tid thread) {
    if (!co || co->finished() || !paused) return Error::msg("the replay is not stopped anywhere (go to a checkpoint first)");
    TRY(sync_breakpoints(motion == Motion::Step ? std::optional<Tid>(thread) : std::nullopt));
    TRY(sync_watches());
    const Position from = cur;
    mode = Mode::Live;  // a seek ends where it paused; from there the client drives
    continuing = motion == Motion::Continue;
    if (motion == Motion::Step) step_tid = thread;
    for (;;) {
      TRY(drive());
      if (paused && unnamed_hit) return name_watch_stop(from, motion, thread);
      if (paused) return stop;
      // The segment is over.
      const uint64_t seg = k;
      if (!outcome->ok()) {
        Error e = outcome->error();
        co.reset();
        return e;
      }
      SegmentOutcome out = **outcome;
      if (out.end == SegmentEnd::Diverged) {
        Divergence d = out.divergence.value_or(Divergence{});
        ThreadedStop back = TRY(goto_checkpoint(seg));
        back.stop.cause = StopCause::Diverged;
        back.stop.divergence = d;
        stop = back;
        return back;
      }
      if (seg + 1 >= checkpoints) return Error::msg("internal: segment " + std::to_string(seg) + " ended past history");
      if (is_exec_checkpoint(reader, seg + 1)) {
        // A new image: the client stops there and loads its symbols.
        ThreadedStop at = TRY(goto_checkpoint(seg + 1));
        at.stop.cause = StopCause::Exec;
        stop = at;
        return at;
      }
      if (interrupt_requested()) {
        ThreadedStop at = TRY(goto_checkpoint(seg + 1));
        at.stop.cause = StopCause::Interrupted;
        stop = at;
        return at;
      }
      // The next checkpoint is restored: the same state, all threads.
      std::optional<Tid> stepping = step_tid;
      TRY(start_run(seg + 1, Mode::Live));
      step_tid = stepping;
    }
  }

  // A forward move from `from` stopped at a watched access whose count is
  // not exact (the run armed its watches late): the same move again from a
  // seek to `from` that counts the pc after the access, so the stop is named
  // by the thread's arrival there (one more replay of the segment).
  Result<ThreadedStop> name_watch_stop(const Position& from, Motion motion, Tid thread) {
    const UnnamedHit h = *unnamed_hit;
    const ThreadedStop shown = stop;
    also_counted = {h.pc};
    Status there = seek(from);
    also_counted.clear();
    TRY(std::move(there));
    mode = Mode::Live;
    continuing = motion == Motion::Continue;
    if (motion == Motion::Step) step_tid = thread;
    naming = true;
    Status ran = drive();
    naming = false;
    TRY(std::move(ran));
    if (!paused || stop.stop.cause != StopCause::Watchpoint || stop.thread != h.thread || cur.pc != h.pc)
      return Error::msg("internal: the watched access at " + hex_of(h.pc) + " was not met again from " + from.to_string());
    SLSDBG_DEBUG("replay", "a watch stop named %s", cur.to_string().c_str());
    stop = shown;
    return stop;
  }

  // One instruction back: drop the last single step of the position, or,
  // at a breakpoint arrival, a checkpoint's start or a thread's resume,
  // find the thread's instruction before it (position_before*), then a
  // replay to there. A search that fails leaves the replay where it was.
  Result<ThreadedStop> backward_step() {
    if (!co || co->finished() || !paused) return Error::msg("the replay is not stopped anywhere (go to a checkpoint first)");
    // A search that fails after running other replays is undone by
    // ThreadedTimeline::resume, as for any move.
    const Position found = TRY(before(cur));
    TRY(seek(found));
    stop.stop.cause = StopCause::Step;
    stop.syscall_no.reset();
    stop.fork_child.reset();
    return stop;
  }

  // The position one instruction before `p` (backward_step).
  Result<Position> before(Position back) {
    if (!back.steps.empty()) {
      back.steps.pop_back();
      return back;
    }
    if (back.n > 0) return position_before(back);
    if (back.is_start() && back.k > 0) return position_before_checkpoint(back.k);
    if (back.resume_m > 0 && !back.end) return position_before_resume(back.k, back.tid, back.resume_m);
    if (back.event && cur.same_anchor(back)) {
      // At a caught call's entry or return: the call's instruction, not run
      // yet. First as the thread's N-th arrival at the call's site (one
      // replay of the segment with an int3 there: no single steps, however
      // long the thread ran since its last resume); else single steps from
      // that resume. A call made through the syscall buffer's stub: the
      // patched site in the program, before it entered the stub, where GDB
      // has symbols (the stub's own instructions are not the program's).
      Result<std::optional<Position>> arrival = std::optional<Position>();
      if (std::optional<uint64_t> site = call_site_of(back.tid)) arrival = call_site_arrival(back, *site);
      if (arrival.ok() && *arrival) return **arrival;
      SLSDBG_DEBUG("replay", "reverse step from a caught call by its site's arrivals: %s",
                   arrival.ok() ? "none counted" : arrival.error().message.c_str());
      return position_before_resume(back.k, back.tid, resumes[back.tid.value] + 1, true);
    }
    if (back.event)
      return Error::unsupported("a reverse step from this caught system call is not supported yet with threads "
                                "(reverse-continue is)");
    if (back.end && stop.stop.cause == StopCause::Exited && stop.stop.signo == 0 && stop.thread.value != 0 &&
        cur.same_anchor(back)) {
      // The program's exit: the exiting thread's exit call, not run yet;
      // or, when the exit checkpoint stands there (nothing ran since it),
      // the instruction that led to it.
      const Tid t = stop.thread;
      if (resumes[t.value] == 0 && back.k > 0 && running_thread_of(back.k) == t) return position_before_checkpoint(back.k);
      return position_before_resume(back.k, t, resumes[t.value] + 1, true);
    }
    if (back.end)
      return Error::unsupported("a reverse step from this end of a threaded recording is not supported yet "
                                "(reverse-continue is, and reverse-stepi from its exit, a breakpoint or a caught call)");
    return Error::unsupported(
        "a reverse step from here (checkpoint 0's start) is not possible: it is the start of the recording");
  }

  // The program's instruction that made the call thread t stands at (its
  // entry or return): the `syscall` before its pc, or, in the syscall
  // buffer's stub, the patched glibc site that called the stub.
  std::optional<uint64_t> call_site_of(Tid t) {
    process::Task* task = task_of_thread(t);
    if (!task) return std::nullopt;
    const Result<user_regs_struct> r = task->regs();
    if (!r.ok()) return std::nullopt;
    if (!in_sysbuf_stub(r->rip)) return r->rip - 2;
    const std::optional<process::SysbufCallSite> cs =
        process::sysbuf_call_site(r->rip, r->rsp, [task](uint64_t addr, std::span<uint8_t> out) {
          return task->read_memory(RemoteAddr(addr), out).ok();
        });
    if (!cs) return std::nullopt;
    // Its pc is glibc's `syscall`, or the instruction after it once run.
    return r->rip == process::sysbuf_stub_layout().slow ? cs->pc : cs->pc - 2;
  }

  // Thread at_call.tid's arrival at `site` that made the call at_call
  // names: a Seek to the call with an int3 at the site (not a counter stub,
  // which would share the syscall buffer's patch there) counts them.
  Result<std::optional<Position>> call_site_arrival(const Position& at_call, uint64_t site) {
    const bool had = user_bps.count(site) != 0;
    user_bps.insert(site);
    const bool refused = std::exchange(counters_refused, true);
    Status reached = seek(at_call);
    counters_refused = refused;
    const uint64_t n = counts[{at_call.tid.value, site}];
    if (!had) user_bps.erase(site);
    TRY(std::move(reached));
    if (n == 0) return std::optional<Position>();
    return std::optional<Position>(Position{at_call.k, false, at_call.tid, site, n, {}});
  }

  // The position one instruction of arrival.tid before `arrival` (a
  // breakpoint arrival or, after a watched access, the access itself): which
  // of its resumes precedes the arrival (one replay), how many instructions
  // it runs from there to the arrival (a replay single-stepping it).
  Result<Position> position_before(const Position arrival) {  // a copy: runs reset cur
    // Before a watched access named by its count, every run counts the
    // accesses from its restore (way_in checks them at the ways' seeks).
    const bool exact = std::exchange(exact_watches, exact_watches || arrival.watch.has_value());
    Result<Position> p = position_before_impl(arrival);
    exact_watches = exact;
    return p;
  }
  Result<Position> position_before_impl(const Position arrival) {
    // A watched access: the ways into the pc after it, read standing there
    // (one more replay of the segment when a reverse scan found it), so
    // that no single steps run from the thread's last resume, however far
    // that is (a store deep in a CPU-bound stretch).
    if (arrival.watch && arrival.steps.empty() && !(cur.same_anchor(arrival) && cur.steps.empty()))
      TRY(seek(arrival));
    // The ways into pc (ways_in.h), read while the thread stands at the arrival.
    std::optional<uint64_t> rsp;
    if (arrival.steps.empty())
      if (process::Task* task = task_of_thread(arrival.tid))
        if (Result<user_regs_struct> r = task->regs(); r.ok() && r->rip == arrival.pc) rsp = r->rsp;
    target = arrival;
    located_m = located_j = 0;  // kept across the next run, which needs them
    std::vector<WayIn> ways;
    if (rsp) ways = TRY(locate_with_ways(arrival.pc, *rsp, std::nullopt, true));
    else TRY(locate_run(true));
    if (!target_reached || located_m == 0) return Error::msg("internal: the breakpoint arrival was not found again");
    // Each way's arrivals up to this one (a way at pc itself: those before it).
    // (A watch's n counts accesses, not arrivals at pc.)
    const std::vector<std::pair<WayIn, uint64_t>> counted =
        counted_ways(arrival.tid, ways, arrival.pc, arrival.watch ? 0 : arrival.n);
    if (located_j >= 2 && !arrival.watch) {
      // Its previous arrival at pc came after that resume: a loop's last
      // iteration is the way, not everything since the resume.
      const Position arrival_copy = arrival;
      Result<Position> p = position_before_by_previous_arrival(arrival_copy);
      if (p.ok()) return p;
      SLSDBG_DEBUG("replay", "reverse step from the previous arrival: %s", p.error().message.c_str());
      target = arrival;
    }
    if (!counted.empty()) {
      // The way in after whose last arrival the thread's next one at pc is
      // this one (arrival n - 1 counted there): no single steps from the
      // resume, however far that is.
      if (!arrival.watch) also_counted.insert(arrival.pc);
      Result<std::optional<Position>> way = way_in(arrival.k, arrival.tid, counted, [&](const user_regs_struct& r) {
        if (r.rip != arrival.pc) return false;
        if (arrival.watch) return wcounts[{arrival.tid.value, arrival.pc, *arrival.watch}] == arrival.n;
        return arrivals_of(arrival.tid, arrival.pc) + 1 == arrival.n;
      });
      also_counted.clear();
      if (std::optional<Position> p = TRY(std::move(way))) return *p;
      target = arrival;
    }
    target.resume_m = located_m;
    measure_end = MeasureEnd::Arrival;
    SLSDBG_DEBUG("replay", "reverse step: thread %d's arrival follows its resume %llu (arrival %llu since)",
                 arrival.tid.value, (unsigned long long)located_m, (unsigned long long)located_j);
    TRY(start_run(arrival.k, Mode::Measure));
    TRY(drive());
    TRY(check_outcome(true));
    if (!target_reached) return Error::msg("internal: single steps did not reach the breakpoint arrival");
    // At the resume itself: the instruction before is the call (or rdtsc)
    // the thread was resumed from.
    if (measured == 0) return position_before_resume(arrival.k, arrival.tid, located_m);
    return Position{arrival.k, false, arrival.tid, 0, 0, std::vector<Tid>(measured - 1, arrival.tid), located_m};
  }

  // A Locate run of target.k for `target` (set by the caller).
  Status locate_run(bool aborted_ok) {
    TRY(start_run(target.k, Mode::Locate));
    TRY(drive());
    return check_outcome(aborted_ok);
  }

  // The same, counting also the ways into pc (ways_in.h) found at its
  // restore, which it returns; `rsp`: the thread's stack pointer at the
  // target, whose word is read now (the stack holds no patch of ours).
  Result<std::vector<WayIn>> locate_with_ways(uint64_t pc, uint64_t rsp, std::optional<uint64_t> except, bool aborted_ok) {
    WaysWanted w{pc, std::nullopt, except};
    uint64_t word = 0;
    if (process::Task* task = any_task())
      if (task->read_memory(RemoteAddr(rsp), {reinterpret_cast<uint8_t*>(&word), sizeof word}).ok()) w.at_rsp = word;
    ways_wanted = w;
    ways_found.clear();
    Status located = locate_run(aborted_ok);
    ways_wanted.reset();
    also_counted.clear();
    TRY(std::move(located));
    return std::move(ways_found);
  }

  process::Task* task_of_thread(Tid t) {
    for (SegmentThread& th : live)
      if (th.recorded == t) return th.task;
    return nullptr;
  }

  // Thread t's arrivals at pc since the restore, in the run just made.
  // A pc is counted by its stub, then by int3 once the stubs are out
  // (stop_counting carries the stub's count over), or by int3 alone.
  uint64_t arrivals_of(Tid t, uint64_t pc) const {
    auto it = counts.find({t.value, pc});
    return std::max(it == counts.end() ? 0 : it->second, counters.count(t, pc));
  }

  // Each way with thread t's arrivals at its count site up to the moment
  // (a site at the moment's own pc `at`, its n-th arrival: the n - 1 before it).
  std::vector<std::pair<WayIn, uint64_t>> counted_ways(Tid t, const std::vector<WayIn>& ways, uint64_t at,
                                                       uint64_t n) const {
    std::vector<std::pair<WayIn, uint64_t>> out;
    for (const WayIn& w : ways) {
      if (w.count_at != at) out.emplace_back(w, arrivals_of(t, w.count_at));
      else if (w.steps == 0 && n > 0) out.emplace_back(w, n - 1);
    }
    return out;
  }

  // Whether counter stubs may move several instructions: only in runs with
  // a watch (the reverse watch into a loop of short instructions,
  // thr_watch_short; reverse steps without watches keep one-instruction
  // sites: with several, revstep_short_head's reverse-stepi landed wrong),
  // and not in Go code (go_code.h), asked once per segment of the run
  // just restored. A goto to a named moment may take them too: a forward
  // watch stop is named by the arrival at the pc after the access
  // (name_watch_stop), often a loop's 1-4 byte instruction, which a later
  // session without the watch otherwise counted by an int3 per visit.
  std::map<uint64_t, bool> go_code_by_segment;
  bool goto_seek = false;
  bool wide_sites() {
    if (user_watches.empty() && !target.watch && !(goto_seek && mode == Mode::Seek)) return false;
    auto it = go_code_by_segment.find(k);
    if (it == go_code_by_segment.end()) {
      process::Task* task = any_task();
      if (!task) return false;
      it = go_code_by_segment.emplace(k, maps_go_code(*task)).first;
    }
    return !it->second;
  }

  // The pcs of the threads at the checkpoint that ends the segment just
  // restored (none after the last).
  std::vector<uint64_t> next_checkpoint_pcs() {
    std::vector<uint64_t> pcs;
    if (k + 1 < checkpoints)
      if (Result<store::ProcessState> next = reader.process_state(CheckpointId(k + 1)); next.ok())
        for (const store::ThreadState& t : next->threads) pcs.push_back(t.regs.rip);
    return pcs;
  }

  // Whether a way may be counted at `at`: a counter site there that keeps
  // clear of the next checkpoint's patched breakpoint. Counted where that
  // breakpoint goes (a tick that stopped the thread at the loop's count
  // site), the breakpoint gave way to a perf breakpoint, which ran past
  // the checkpoint in the hot loop: "checkpoint N not reached" (a reverse
  // stepi in revstep_far's loop from such a checkpoint).
  std::function<bool(uint64_t)> countable_in(const CodeReader& read) {
    return [&read, wide = wide_sites(), clear = checkpoint_patch_ranges(next_checkpoint_pcs(), read)](uint64_t at) {
      const std::vector<PatchSite> sites = counter_sites(at, read, wide);
      return std::any_of(sites.begin(), sites.end(), [&](const PatchSite& s) { return clear_of(s, clear); });
    };
  }

  // The ways into pc (ways_in.h) in the process just restored, before any
  // int3 or stub of ours went in.
  std::vector<WayIn> ways_into(uint64_t pc, std::optional<uint64_t> at_rsp) {
    process::Task* task = any_task();
    if (!task || !counters.empty() || !inserted.empty()) return {};
    const CodeReader read = task_code_reader(*task);
    return ways_in(pc, at_rsp, read, countable_in(read));
  }
  // The same for a site after pc (later_count_site), at most one.
  std::vector<WayIn> later_site(uint64_t pc) {
    process::Task* task = any_task();
    if (!task || !counters.empty() || !inserted.empty()) return {};
    const CodeReader read = task_code_reader(*task);
    std::optional<WayIn> w = later_count_site(pc, read, countable_in(read));
    return w ? std::vector<WayIn>{*w} : std::vector<WayIn>{};
  }

  // Of `ways` (a way in, and thread t's arrivals at its count site up to a
  // moment), the one whose last run is followed by that moment: a seek to
  // it plus one step of t, whose registers `is_next` checks. One segment
  // replay per way tried; nullopt when none is.
  Result<std::optional<Position>> way_in(uint64_t seg, Tid t, const std::vector<std::pair<WayIn, uint64_t>>& ways,
                                         const std::function<bool(const user_regs_struct&)>& is_next) {
    for (const auto& [way, c] : ways) {
      if (c == 0) continue;
      const uint64_t prev = way.count_at;
      const Position p{seg, false, t, prev, c, std::vector<Tid>(way.steps, t)};
      Position stepped = p;
      stepped.steps.push_back(t);
      Status st = seek(stepped);
      process::Task* task = st.ok() ? task_of_thread(t) : nullptr;
      Result<user_regs_struct> r = task ? task->regs() : Result<user_regs_struct>(Error::msg("no such thread"));
      const bool next = r.ok() && is_next(*r);
      SLSDBG_DEBUG("replay", "reverse step: thread %d's arrival %llu at 0x%llx %s", t.value, (unsigned long long)c,
                   (unsigned long long)prev,
                   next ? "is the way in" : st.ok() ? "is not the way in" : st.error().message.c_str());
      if (next) return std::optional<Position>(p);
    }
    return std::optional<Position>();
  }

  // The position one instruction before `arrival` from the thread's
  // arrival before it at the same pc (n - 1): single steps of the thread
  // until it stands at pc again, at most kMaxStepsFromPreviousArrival.
  Result<Position> position_before_by_previous_arrival(const Position& arrival) {
    Position previous{arrival.k, false, arrival.tid, arrival.pc, arrival.n - 1, {}};
    TRY(seek(previous));
    for (uint64_t s = 1; s <= kMaxStepsFromPreviousArrival; s++) {
      ThreadedStop st = TRY(forward(Motion::Step, arrival.tid));
      if (st.stop.cause != StopCause::Step || st.thread != arrival.tid || k != arrival.k)
        return Error::msg("another stop came first");
      if (st.stop.pc == arrival.pc) {
        previous.steps.assign(s - 1, arrival.tid);
        return previous;
      }
    }
    return Error::msg("more than " + std::to_string(kMaxStepsFromPreviousArrival) + " instructions since");
  }

  // The position one instruction before checkpoint k's start: the last
  // instruction of the thread that ran into the checkpoint, in segment k-1.
  // Which of its resumes is its last there (one replay of k-1 to its end),
  // how many instructions it runs from that resume to the checkpoint's
  // registers (a replay single-stepping it), then one fewer; with none,
  // the system call (or rdtsc) it stopped at before that resume.
  Result<Position> position_before_checkpoint(uint64_t k_now) {
    const Tid t = running_thread_of(k_now);
    const uint64_t seg = k_now - 1;
    store::ProcessState next = TRY(reader.process_state(CheckpointId(k_now)));
    const store::ThreadState* want = nullptr;
    for (const store::ThreadState& th : next.threads)
      if (th.tid == t) want = &th;
    if (!want) return Error::msg("internal: checkpoint " + std::to_string(k_now) + " lacks its running thread");
    const user_regs_struct want_regs = want->regs;
    target = Position{seg, true, t};
    // Its visit at the checkpoint is thread_reach's, not a count of ours.
    const std::vector<WayIn> ways = TRY(locate_with_ways(want_regs.rip, want_regs.rsp, want_regs.rip, false));
    const uint64_t last = resumes[t.value];
    if (last == 0)
      return Error::unsupported("thread " + std::to_string(t.value) + " did not run in segment " + std::to_string(seg) +
                                ": a reverse step from checkpoint " + std::to_string(k_now) +
                                "'s start is not supported yet there");
    // The way in whose last arrival in the segment is followed by the checkpoint's registers.
    std::optional<Position> way = TRY(way_in(seg, t, counted_ways(t, ways, 0, 0), [&](const user_regs_struct& r) {
      return same_regs(r, want_regs);
    }));
    if (way) return *way;
    Result<Position> later = position_before_checkpoint_by_later_site(seg, t, want_regs);
    if (later.ok()) return *later;
    SLSDBG_DEBUG("replay", "reverse step from checkpoint %llu by a later site: %s", (unsigned long long)k_now,
                 later.error().message.c_str());
    target = Position{seg, true, t, 0, 0, {}, last};
    measure_end = MeasureEnd::Registers;
    measure_want = want->regs;
    TRY(start_run(seg, Mode::Measure));
    TRY(drive());
    TRY(check_outcome(true));
    if (!target_reached) return Error::msg("internal: single steps did not reach checkpoint " + std::to_string(k_now));
    SLSDBG_DEBUG("replay", "reverse step from checkpoint %llu: thread %d's resume %llu, then %llu instructions",
                 (unsigned long long)k_now, t.value, (unsigned long long)last, (unsigned long long)measured);
    if (measured > 0) return Position{seg, false, t, 0, 0, std::vector<Tid>(measured - 1, t), last};
    return position_before_resume(seg, t, last);
  }

  // The same when no way in can be counted (a 1-4 byte loop head, ways_in.h):
  // thread t's last arrival in segment seg at a countable instruction after
  // the checkpoint's pc (later_count_site), then single steps until it has
  // the checkpoint's registers `want`: about a loop iteration, however far
  // the thread's resume lies.
  Result<Position> position_before_checkpoint_by_later_site(uint64_t seg, Tid t, const user_regs_struct& want) {
    target = Position{seg, true, t};
    ways_wanted = WaysWanted{want.rip, std::nullopt, std::nullopt, true};
    ways_found.clear();
    Status located = locate_run(false);
    ways_wanted.reset();
    also_counted.clear();
    TRY(std::move(located));
    if (ways_found.empty()) return Error::msg("no countable instruction follows the checkpoint's pc");
    const uint64_t site = ways_found.front().count_at;
    const uint64_t c = arrivals_of(t, site);
    if (c == 0) return Error::msg("the thread did not reach the site after the checkpoint's pc in the segment");
    Position from{seg, false, t, site, c, {}};
    TRY(seek(from));
    for (uint64_t s = 1; s <= kMaxStepsFromPreviousArrival; s++) {
      const ThreadedStop st = TRY(forward(Motion::Step, t));
      if (st.stop.cause != StopCause::Step || st.thread != t || k != seg) return Error::msg("another stop came first");
      process::Task* task = task_of_thread(t);
      if (!task) return Error::msg("the thread is gone");
      if (same_regs(TRY(task->regs()), want)) {
        from.steps.assign(s - 1, t);
        return from;
      }
    }
    return Error::msg("more than " + std::to_string(kMaxStepsFromPreviousArrival) +
                      " instructions from the site's last arrival to the checkpoint");
  }

  // The position one instruction before thread t's resume m of segment seg
  // with no step since: the instruction it stopped at before (a system call
  // or rdtsc), from its resume m-1 (a replay single-stepping it until it is
  // resumed again).
  Result<Position> position_before_resume(uint64_t seg, Tid t, uint64_t m, bool program_code = false) {
    if (m < 2)
      return Error::unsupported("thread " + std::to_string(t.value) + " has not run since checkpoint " +
                                std::to_string(seg) + "'s start: a reverse step from here is not supported yet");
    target = Position{seg, false, t, 0, 0, {}, m - 1};
    measure_end = MeasureEnd::NextResume;
    TRY(start_run(seg, Mode::Measure));
    TRY(drive());
    TRY(check_outcome(true));
    if (!target_reached || measured == 0)
      return Error::msg("internal: thread " + std::to_string(t.value) + "'s resume " + std::to_string(m) +
                        " was not found again");
    const uint64_t steps = program_code && measured_in_program != kNone ? measured_in_program : measured;
    return Position{seg, false, t, 0, 0, std::vector<Tid>(steps, t), m - 1};
  }

  static bool in_sysbuf_stub(uint64_t pc) { return process::sysbuf_stub_layout().contains(pc); }

  // Goes to a hit found by a reverse continue. A watched access stops just
  // before the accessing instruction, GDB's convention for reverse.
  // A tail window's hit is named by the thread's arrival after the access
  // (not by its count): in a loop that arrival's previous one is an
  // iteration back, and single steps from it (a seek by count) find the
  // access. Else the ways into the pc, read standing there (a Locate run,
  // which counts a pc whose site a thread at the checkpoint stands in by an
  // int3 per visit: minutes in 1 of ~36 recordings of thr_watch_counter).
  Result<ThreadedStop> land_on(const Hit& h) {
    if (!h.watch) {
      TRY(seek(h.at));
      return stop;
    }
    Result<Position> before = h.at;
    if (!h.before_known && !h.at.watch) {
      before = Error::msg("the thread's first arrival there");
      if (h.at.n >= 2) before = position_before_by_previous_arrival(h.at);
      if (!before.ok()) {
        SLSDBG_DEBUG("replay", "reverse-continue: not from the previous arrival (%s)", before.error().message.c_str());
        TRY(seek(h.at));
        before = position_before(h.at);
      }
    } else if (!h.before_known) {
      before = position_before(h.at);
    }
    TRY(seek(TRY(std::move(before))));
    stop = watch_stop(h.thread, *h.watch, stop.stop.pc);
    return stop;
  }

  // Segments that cannot have written the watched bytes are not replayed
  // (write_filter.h): only with write watches and no breakpoint.
  std::optional<WriteFilter> write_filter() const {
    if (user_watches.empty()) return std::nullopt;
    std::vector<std::pair<uint64_t, uint64_t>> ranges;
    bool reads = false;
    for (const WatchRange& w : user_watches) {
      ranges.emplace_back(w.addr, w.len);
      if (w.kind != WatchKind::Write) reads = true;
    }
    return WriteFilter::make(reader, std::move(ranges), {user_bps.begin(), user_bps.end()}, reads);
  }

  Result<ThreadedStop> backward() {
    if (!co || co->finished() || !paused) return Error::msg("the replay is not stopped anywhere (go to a checkpoint first)");
    const Position from = cur;
    // Stopped right after a watched access (a forward watch stop, no step
    // since): that access is the first one behind; land before it, as
    // GDB's `record full` and rr do. Before, the search began before it
    // and found the access before that one.
    if (from.watch && from.steps.empty() && user_watches.count(*from.watch))
      return land_on(Hit{from, from.watch, false, from.tid});
    std::optional<WriteFilter> filter = write_filter();
    for (uint64_t seg = from.k + 1; seg-- > 0;) {
      if (seg < from.k && filter && !filter->must_replay(seg, WriteFilter::Use::Reverse)) {
        skipped++;
        continue;
      }
      if (seg < from.k && interrupt_requested()) {
        // Searched back to segment seg + 1's start, found nothing: stay there.
        ThreadedStop at = TRY(goto_checkpoint(seg + 1));
        at.stop.cause = StopCause::Interrupted;
        stop = at;
        return at;
      }
      if (seg < from.k && is_exec_checkpoint(reader, seg + 1)) return before_exec(seg + 1);
      Position t = seg == from.k ? from : Position{seg, true};
      if (t.is_start() && t.steps.empty()) continue;
      const TailResult tail = TRY(backward_in_tail(t));
      if (tail.landed) return *tail.landed;
      if (tail.nothing_in_segment) continue;
      std::vector<Hit> found = TRY(collect(seg, t));
      if (!found.empty()) return land_on(found.back());
    }
    ThreadedStop s = TRY(goto_checkpoint(0));
    s.stop.cause = StopCause::HistoryBegin;
    stop = s;
    return s;
  }

  // A reverse continue with watches looks at the tail of the current
  // segment first (the single-thread Timeline's timeline_watch_tail.cc, for
  // threads). Collected from the restore, a watch traps at every access: a
  // variable a thread's loop writes costs a stop per iteration, twice more to
  // land. Here: a collection capped at kTailAnchorCap hits names the
  // (thread, pc after the access) most of them came back at, the anchor;
  // a seek counts the thread's arrivals there before `from` (no watch armed:
  // no trap per access); then windows from the d-th last arrival to `from`,
  // d widening 8-fold, are collected with the watches armed at the window's
  // start only. Any window ending at `from` is the end of history before it,
  // so its last hit is the answer when it has one. The hit is named by the
  // thread's arrival at the pc after the access, and the landing before it
  // is a reverse step from that arrival (counted, no watch armed).
  static constexpr size_t kTailAnchorCap = 64;
  static constexpr uint64_t kTailWiden = 8;
  struct TailResult {
    std::optional<ThreadedStop> landed;
    bool nothing_in_segment = false;  // the capped collection saw all of from.k's hits: none
  };
  Result<TailResult> backward_in_tail(const Position& from) {  // `from`: the position, or an earlier segment's end
    if (user_watches.empty() || catching || fork_stops || vfork_stops || from.watch || counting_turned_off() ||
        (from.is_start() && from.steps.empty()))
      return TailResult{};
    collect_cap = kTailAnchorCap;
    Result<std::vector<Hit>> capped = collect(from.k, from);
    const bool was_capped = collect_capped;
    collect_cap = SIZE_MAX;
    std::vector<Hit> first = TRY(std::move(capped));
    if (!was_capped) {  // every hit of the segment before `from`, as the plain search collects them
      if (first.empty()) return TailResult{std::nullopt, true};
      return TailResult{TRY(land_on(first.back())), false};
    }
    std::map<std::pair<int32_t, uint64_t>, size_t> seen;
    for (const Hit& h : first)
      if (h.watch) seen[{h.thread.value, h.at.pc}]++;
    std::pair<int32_t, uint64_t> anchor{};
    size_t most = 0;
    for (const auto& [key, n] : seen)
      if (n > most) {
        anchor = key;
        most = n;
      }
    if (most < 2) return TailResult{};
    const Tid ta(anchor.first);
    const uint64_t pa = anchor.second;
    // The anchor's arrivals before `from`: a seek there counting them, or
    // to a segment's end a window that never opens.
    uint64_t arrivals = 0;
    if (from.end) {
      TRY(collect_window(from, Position{from.k, false, ta, pa, UINT64_MAX, {}}, {pa}));
      arrivals = std::max(counts[{ta.value, pa}], counters.count(ta, pa));
    } else {
      also_counted = {pa};
      Status there = seek(from);
      also_counted.clear();
      TRY(std::move(there));
      arrivals = counts[{ta.value, pa}];
    }
    if (from.tid == ta && from.pc == pa && from.n > 0 && from.steps.empty() && !from.event && from.resume_m == 0)
      arrivals = from.n - 1;  // `from` is one of them
    SLSDBG_DEBUG("replay", "reverse-continue: the tail of %s first, from thread %d's arrivals at %s (%llu before it)",
                 from.to_string().c_str(), ta.value, hex_of(pa).c_str(), (unsigned long long)arrivals);
    std::set<uint64_t> pcs{pa};
    for (uint64_t back = 1; arrivals > 0; back = std::min(back * kTailWiden, arrivals)) {
      if (interrupt_requested()) {
        // Back where the search began: the position, or the start of the
        // segment after the one searched.
        ThreadedStop at = TRY(from.end ? goto_checkpoint(from.k + 1) : goto_position(from));
        at.stop.cause = StopCause::Interrupted;
        at.stop.back_where_started = !from.end;
        stop = at;
        return TailResult{at, false};
      }
      const Position start{from.k, false, ta, pa, arrivals - back + 1, {}};
      std::vector<Hit> found = TRY(collect_window(from, start, pcs));
      SLSDBG_DEBUG("replay", "reverse-continue: window from %s: %zu hits", start.to_string().c_str(), found.size());
      const auto unnamed = [](const Hit& h) { return h.watch && !h.before_known && h.at.n == 0; };
      if (!found.empty() && unnamed(found.back())) {
        // The pc after the last access is not counted yet: the same window
        // again, counting it (the run repeats the same accesses).
        pcs.insert(found.back().at.pc);
        found = TRY(collect_window(from, start, pcs));
        if (found.empty() || unnamed(found.back()))
          return Error::msg("internal: a window's last watched access was not named again");
      }
      if (!found.empty()) return TailResult{TRY(land_on(found.back())), false};
      if (back == arrivals) break;
    }
    return TailResult{};
  }

  Result<std::vector<Hit>> collect_window(const Position& t, const Position& start, const std::set<uint64_t>& pcs) {
    window_from = start;
    window_pcs = pcs;
    Result<std::vector<Hit>> r = collect(t.k, t);
    window_from.reset();
    window_pcs.clear();
    return r;
  }

  // Backward across exec checkpoint k: the old image's execve call in
  // segment k - 1, at its entry, as an exec stop (the client reloads the
  // old program's symbols, then goes on backward).
  Result<ThreadedStop> before_exec(uint64_t k) {
    const ExecveEvent execve = TRY(execve_event_before(reader, k));
    Position p{k - 1, false, execve.tid};
    p.event = execve.index;
    p.entry = true;
    TRY(seek(p));
    stop.stop.cause = StopCause::Exec;
    stop.syscall_no.reset();
    stop.fork_child.reset();
    return stop;
  }

  // A reverse continue with only write watches on the bytes asked, the
  // client's breakpoints and watches set aside; then back where it was.
  Result<std::optional<ThreadedLastWrite>> last_write(uint64_t addr, uint64_t len,
                                                      const std::function<Status(const ThreadedLastWrite&)>& at) {
    if (!co || co->finished() || !paused) return Error::msg("the replay is not stopped anywhere (go to a checkpoint first)");
    std::set<WatchRange> pieces;
    for (uint64_t a = addr, end = addr + len; a < end;) {
      uint64_t n = 8;
      while (n > 1 && (a % n != 0 || a + n > end)) n /= 2;
      pieces.insert(WatchRange{WatchKind::Write, a, n});
      a += n;
    }
    if (len == 0 || pieces.size() > kMaxThreadWatches)
      return Error::msg("with threads last-write watches at most " + std::to_string(kMaxThreadWatches) +
                        " aligned pieces of up to 8 bytes (debug registers): ask for fewer bytes");
    const Position from = cur;
    std::set<uint64_t> bps = std::exchange(user_bps, {});
    std::set<WatchRange> watches = std::exchange(user_watches, pieces);
    const bool catches = std::exchange(catching, false);
    const bool forks = std::exchange(fork_stops, false), vforks = std::exchange(vfork_stops, false);
    Result<ThreadedStop> found = backward();
    catching = catches;
    fork_stops = forks;
    vfork_stops = vforks;
    std::optional<ThreadedLastWrite> out;
    Status described = ok_status();
    if (found.ok() && found->stop.cause == StopCause::Watchpoint) {
      out = ThreadedLastWrite{cur.to_string(), cur.k, found->thread, found->stop.pc};
      described = at(*out);
    }
    user_bps = std::move(bps);
    user_watches = std::move(watches);
    Status back = ok_status();
    if (from.is_start() && from.steps.empty()) {
      if (auto at_start = goto_checkpoint(from.k); !at_start.ok()) back = at_start.take_error();
    } else {
      back = seek(from);
    }
    if (!found.ok()) return found.take_error();
    if (!described.ok()) return described.take_error();
    if (!back.ok()) return back.take_error().context("going back to " + from.to_string());
    return out;
  }
};

ThreadedTimeline::ThreadedTimeline(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
ThreadedTimeline::~ThreadedTimeline() = default;

Result<std::unique_ptr<ThreadedTimeline>> ThreadedTimeline::open(const store::RecordingReader& reader,
                                                                  std::function<bool()> interrupted,
                                                                  std::function<int()> interrupt_fd) {
  if (reader.checkpoints().empty()) return Error::msg("the recording has no checkpoint");
  std::unique_ptr<ThreadedTimeline> t(new ThreadedTimeline(std::make_unique<Impl>(reader)));
  t->impl_->interrupted = std::move(interrupted);
  t->impl_->interrupt_fd = std::move(interrupt_fd);
  TRY(t->impl_->goto_checkpoint(0));
  return t;
}

Result<ThreadedStop> ThreadedTimeline::goto_checkpoint(CheckpointId k) { return impl_->goto_checkpoint(k.value); }

Result<ThreadedStop> ThreadedTimeline::resume(Direction direction, Motion motion, Tid thread) {
  Impl& t = *impl_;
  // An interrupt may cut a run deep inside a long segment (move_cut.h): the
  // processes are then in mid-run, at no position; land at one.
  MoveCut cut(t.interrupted, t.interrupt_fd);
  const uint64_t start_segment = t.k;
  const Position from = t.cur;
  const ThreadedStop stop_before = t.stop;
  const uint64_t runs_before = t.runs;
  Result<ThreadedStop> st = direction == Direction::Forward ? t.forward(motion, thread)
                            : motion == Motion::Step        ? t.backward_step()
                                                            : t.backward();
  if (!cut.disarm_and_check()) {
    // A move that failed (a divergence, a search that gave up) after running
    // replays leaves the user where they were, not in its wreck.
    if (!st.ok() && t.runs != runs_before && t.goto_position(from).ok()) {
      t.stop = stop_before;
      Error e = st.take_error();
      e.message += " (you are back where this move started)";
      return e;
    }
    return st;
  }
  const bool back = direction == Direction::Forward && t.k <= start_segment;
  Result<ThreadedStop> at = back ? t.goto_position(from) : t.goto_checkpoint(t.k);
  if (!at.ok()) return at;
  at->stop.cause = StopCause::Interrupted;
  at->stop.back_where_started = back;
  t.stop = *at;
  return at;
}

ThreadedStop ThreadedTimeline::last_stop() const { return impl_->stop; }

std::string ThreadedTimeline::moment() const { return impl_->cur.to_string(); }

Result<ThreadedStop> ThreadedTimeline::goto_moment(const ThreadedPosition& p) { return impl_->goto_position(p); }

void ThreadedTimeline::catch_syscalls(bool enabled, std::set<int64_t> numbers) {
  impl_->catching = enabled;
  impl_->caught = enabled ? std::move(numbers) : std::set<int64_t>{};
}

void ThreadedTimeline::report_forks(bool fork, bool vfork) {
  const bool children = may_have_children(impl_->reader);  // else nothing to look for
  impl_->fork_stops = fork && children;
  impl_->vfork_stops = vfork && children;
}

Status ThreadedTimeline::add_breakpoint(uint64_t addr) {
  impl_->user_bps.insert(addr);
  return ok_status();
}

Status ThreadedTimeline::remove_breakpoint(uint64_t addr) {
  impl_->user_bps.erase(addr);
  return ok_status();
}

Status ThreadedTimeline::add_watchpoint(WatchKind kind, uint64_t addr, uint64_t len) {
  const WatchRange w{kind, addr, len};
  if (impl_->user_watches.count(w)) return ok_status();
  if (impl_->user_watches.size() >= kMaxThreadWatches)
    return Error::msg("at most " + std::to_string(kMaxThreadWatches) +
                      " watched pieces at once in a recording with threads (a fourth debug register reaches checkpoints)");
  impl_->user_watches.insert(w);
  return ok_status();
}

Status ThreadedTimeline::remove_watchpoint(WatchKind kind, uint64_t addr, uint64_t len) {
  impl_->user_watches.erase(WatchRange{kind, addr, len});
  return ok_status();
}

std::vector<Tid> ThreadedTimeline::threads() const {
  std::vector<Tid> out;
  if (!impl_->paused) return out;
  for (const SegmentThread& t : impl_->live) out.push_back(t.recorded);
  return out;
}

namespace {
template <typename Impl>
Result<process::Task*> task_of(Impl& impl, Tid thread) {
  if (!impl.paused) return Error::msg("the replay is not stopped");
  for (SegmentThread& t : impl.live)
    if (t.recorded == thread) return t.task;
  return Error::msg("no thread " + std::to_string(thread.value) + " at this point of the recording");
}
}  // namespace

Result<user_regs_struct> ThreadedTimeline::regs(Tid thread) {
  process::Task* t = TRY(task_of(*impl_, thread));
  return t->regs();
}

Result<std::vector<uint8_t>> ThreadedTimeline::xsave(Tid thread) {
  process::Task* t = TRY(task_of(*impl_, thread));
  return t->xsave();
}

Result<size_t> ThreadedTimeline::read_memory(uint64_t addr, std::span<uint8_t> out) {
  if (!impl_->paused) return Error::msg("the replay is not stopped");
  process::Task* t = impl_->any_task();
  if (!t) return Error::msg("no live thread");
  // Page by page: a read that runs into an unmapped page returns what it got.
  size_t done = 0;
  while (done < out.size()) {
    const uint64_t at = addr + done;
    const size_t chunk = std::min<size_t>(out.size() - done, 4096 - (at % 4096));
    Status s = t->read_memory(RemoteAddr(at), out.subspan(done, chunk));
    if (!s.ok()) {
      if (done == 0) return s.take_error();
      break;
    }
    done += chunk;
  }
  for (auto& [a, orig] : impl_->inserted)
    if (a >= addr && a < addr + done) out[a - addr] = orig;
  return done;
}

Result<std::vector<store::Mapping>> ThreadedTimeline::live_mappings() {
  if (!impl_->paused) return Error::msg("the replay is not stopped");
  process::Task* t = impl_->any_task();
  if (!t) return Error::msg("no live thread");
  std::vector<store::Mapping> maps = TRY(process::read_maps(t->tgid()));
  std::erase_if(maps, [](const store::Mapping& m) {  // replay's own code and scratch pages
    return m.start >= process::kInjectPageAddr && m.end <= process::kInjectPageAddr + process::kInjectAreaSize;
  });
  return maps;
}

CheckpointId ThreadedTimeline::current_segment() const { return CheckpointId(impl_->k); }
uint64_t ThreadedTimeline::checkpoint_count() const { return impl_->checkpoints; }
uint64_t ThreadedTimeline::segment_runs() const { return impl_->runs; }
uint64_t ThreadedTimeline::segments_skipped() const { return impl_->skipped; }

Result<std::optional<ThreadedLastWrite>> ThreadedTimeline::last_write(
    uint64_t addr, uint64_t len, const std::function<Status(const ThreadedLastWrite&)>& at) {
  return impl_->last_write(addr, len, at);
}

std::string ThreadedTimeline::position_text() const {
  const Position& p = impl_->cur;
  std::string s = "checkpoint " + std::to_string(p.k);
  if (p.end) s += ", end of its segment";
  else if (p.resume_m) s += ", thread " + std::to_string(p.tid.value) + "'s resume " + std::to_string(p.resume_m);
  else if (p.event)
    s += ", thread " + std::to_string(p.tid.value) + (p.entry ? " entering" : " returning from") + " the system call of event " +
         std::to_string(*p.event);
  else if (p.n == 0) s += ", its start";
  else if (p.watch)
    s += ", thread " + std::to_string(p.tid.value) + "'s access " + std::to_string(p.n) + " to " + hex_of(p.watch->addr) +
         " by the instruction before " + hex_of(p.pc);
  else s += ", thread " + std::to_string(p.tid.value) + "'s arrival " + std::to_string(p.n) + " at " + hex_of(p.pc);
  if (!p.steps.empty()) s += ", then " + std::to_string(p.steps.size()) + " single steps";
  return s;
}

}  // namespace slsdbg::replay
