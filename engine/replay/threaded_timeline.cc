#include "engine/replay/threaded_timeline_impl.h"

namespace slsdbg::replay {

std::string ThreadedTimeline::Impl::hex_of(uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

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
  const ThreadedPosition from = t.cur;
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
  const ThreadedPosition& p = impl_->cur;
  std::string s = "checkpoint " + std::to_string(p.k);
  if (p.end) s += ", end of its segment";
  else if (p.resume_m) s += ", thread " + std::to_string(p.tid.value) + "'s resume " + std::to_string(p.resume_m);
  else if (p.event)
    s += ", thread " + std::to_string(p.tid.value) + (p.entry ? " entering" : " returning from") + " the system call of event " +
         std::to_string(*p.event);
  else if (p.n == 0) s += ", its start";
  else if (p.watch)
    s += ", thread " + std::to_string(p.tid.value) + "'s access " + std::to_string(p.n) + " to " + Impl::hex_of(p.watch->addr) +
         " by the instruction before " + Impl::hex_of(p.pc);
  else s += ", thread " + std::to_string(p.tid.value) + "'s arrival " + std::to_string(p.n) + " at " + Impl::hex_of(p.pc);
  if (!p.steps.empty()) s += ", then " + std::to_string(p.steps.size()) + " single steps";
  return s;
}

}  // namespace slsdbg::replay
