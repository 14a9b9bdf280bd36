#include "gdbserver/replay/timeline_target.h"

#include <cstring>

#include "gdbserver/protocol/x86_64_registers.h"
#include "gdbserver/replay/stop_mapping.h"
#include "gdbserver/replay/tls_address.h"

namespace slsdbg::gdbserver {

namespace {

std::string base_name(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

constexpr size_t kMaxWatchPieces = 4;  // DR0-DR3; the timeline may allow fewer and says so

}  // namespace

TimelineTarget::TimelineTarget(store::RecordingReader& reader, std::string exe, std::vector<uint8_t> auxv)
    : reader_(reader),
      exe_(std::move(exe)),
      auxv_([this, first = std::move(auxv)]() -> Result<std::string> {
        if (!timeline_) return std::string(first.begin(), first.end());
        store::ProcessState s = TRY(state_now());
        return std::string(s.auxv.begin(), s.auxv.end());
      }),
      exec_file_([this]() -> Result<std::string> {
        if (!timeline_) return exe_;
        store::ProcessState s = TRY(state_now());
        return s.exe.empty() ? exe_ : s.exe;
      }) {}

Result<store::ProcessState> TimelineTarget::state_now() {
  const CheckpointId k = timeline_->current_segment();
  return TRY_CTX(reader_.process_state(k), "reading checkpoint " + std::to_string(k.value));
}

TimelineTarget::~TimelineTarget() = default;

Result<std::unique_ptr<TimelineTarget>> TimelineTarget::open(store::RecordingReader& reader) {
  if (reader.checkpoints().empty()) return Error::msg("the recording has no checkpoint");
  store::ProcessState first = TRY_CTX(reader.process_state(CheckpointId(0)), "reading checkpoint 0");
  std::string exe = first.exe.empty() ? reader.meta().program : first.exe;
  std::unique_ptr<TimelineTarget> target(new TimelineTarget(reader, exe, first.auxv));
  TimelineTarget* self = target.get();
  replay::TimelineOptions options;
  options.interrupted = [self] { return self->running_ && self->running_->stop_requested(); };
  options.interrupt_fd = [self] { return self->running_ ? self->running_->wake_fd() : -1; };
  target->timeline_ = TRY(replay::Timeline::open(reader, options));
  target->tid_ = target->timeline_->thread();
  // What `ps` would show: the kernel's comm, at most 15 characters.
  target->thread_name_ = base_name(exe).substr(0, 15);
  return target;
}

Result<replay::Timeline*> TimelineTarget::live() {
  if (!timeline_) return Error::msg("the replay session has ended (killed or detached)");
  return timeline_.get();
}

Result<StopReason> TimelineTarget::move(StopRequest* stop,
                                        const std::function<Result<replay::TimelineStop>()>& fn) {
  TRY(live());
  regs_valid_ = false;
  diversion_.reset();  // history moves on; whatever ran in the copy is gone
  at_syscall_entry_.reset();
  at_syscall_return_.reset();
  at_exit_entry_ = false;
  vfork_done_due_ = false;
  running_ = stop;
  auto result = fn();
  running_ = nullptr;
  moved_ = true;
  if (!result.ok()) {
    last_reason_.reset();
    diverged_.reset();
    return result.take_error();
  }
  diverged_ = result->cause == replay::StopCause::Diverged ? result->divergence : std::nullopt;
  if (result->cause == replay::StopCause::Diverged && !diverged_) diverged_ = replay::Divergence{};
  MappedStop mapped = map_timeline_stop(*result, tid_);
  if (mapped.reason.kind == StopKind::Exec) {
    store::ProcessState s = TRY(state_now());  // the exec checkpoint's: the new program
    mapped.reason.exec_path = s.exe.empty() ? exe_ : s.exe;
    thread_name_ = base_name(mapped.reason.exec_path).substr(0, 15);
  }
  notes_ += mapped.note;
  last_reason_ = mapped.reason;
  return mapped.reason;
}

std::string TimelineTarget::take_stop_notes() { return std::exchange(notes_, std::string()); }

Result<std::vector<ThreadInfo>> TimelineTarget::threads() {
  TRY(live());
  return std::vector<ThreadInfo>{{tid_, thread_name_}};
}

Status TimelineTarget::load_registers() {
  if (regs_valid_) return ok_status();
  replay::Timeline* t = TRY(live());
  user_regs_struct regs = diversion_ ? TRY(diversion_->task().regs()) : TRY(t->regs());
  user_regs_.assign(reinterpret_cast<const uint8_t*>(&regs), reinterpret_cast<const uint8_t*>(&regs) + sizeof regs);
  fpu_ = diversion_ ? TRY(diversion_->task().xsave()) : TRY(t->xsave());
  if (fpu_.size() < x86_64::kFxsaveSize) fpu_.resize(x86_64::kFxsaveSize, 0);
  regs_valid_ = true;
  return ok_status();
}

Status TimelineTarget::read_register(Tid thread, int number, std::span<uint8_t> out) {
  if (thread != tid_) return Error::msg("no thread " + std::to_string(thread.value) + " in this recording");
  TRY(load_registers());
  return read_register_from_areas(RegisterAreasView{user_regs_, fpu_}, number, out);
}

Result<Diversion*> TimelineTarget::diversion() {
  if (diversion_) return diversion_.get();
  replay::Timeline* t = TRY(live());
  TRY(load_registers());  // the moment's, before the copy owns them
  diversion_ = TRY(Diversion::start(*t));
  return diversion_.get();
}

Status TimelineTarget::write_register(Tid thread, int number, std::span<const uint8_t> value) {
  if (thread != tid_) return Error::msg("no thread " + std::to_string(thread.value) + " in this recording");
  Diversion* d = TRY(diversion());
  TRY(load_registers());
  TRY(write_register_to_areas(RegisterAreas{user_regs_, fpu_}, number, value));
  user_regs_struct r;
  std::memcpy(&r, user_regs_.data(), sizeof r);
  TRY(d->task().set_regs(r));
  if (fpu_.size() > x86_64::kFxsaveSize) return d->task().set_xsave(fpu_);
  return ok_status();
}

Result<size_t> TimelineTarget::read_memory(RemoteAddr addr, std::span<uint8_t> out) {
  replay::Timeline* t = TRY(live());
  if (diversion_) {
    TRY(diversion_->task().read_memory(addr, out));
    return out.size();
  }
  return t->read_memory(addr.value, out);
}

Status TimelineTarget::write_memory(RemoteAddr addr, std::span<const uint8_t> bytes) {
  Diversion* d = TRY(diversion());
  return d->task().write_memory(addr, bytes);
}

Result<StopReason> TimelineTarget::resume(const ResumeRequest& request, StopRequest& stop) {
  replay::Timeline* t = TRY(live());
  ResumeMode mode = ResumeMode::Stay;
  for (const ThreadResume& r : request.threads) {
    if (r.tid == tid_) mode = r.mode;
  }
  if (mode == ResumeMode::Stay) return last_stop();
  if (diversion_) {
    // Registers back where history has them (GDB restores them after an
    // inferior call): the diversion is over and history resumes. Otherwise
    // the copy runs (the call itself).
    user_regs_struct mine = TRY(diversion_->task().regs());
    user_regs_struct recorded = TRY(t->regs());
    if (mine.rip != recorded.rip || mine.rsp != recorded.rsp) {
      regs_valid_ = false;
      StopReason r = TRY(diversion_->resume(tid_, mode == ResumeMode::Step, breakpoints_, stop));
      if (r.kind == StopKind::Exited || r.kind == StopKind::Killed) diversion_.reset();
      last_reason_ = r;
      return r;
    }
  }
  if (vfork_done_due_) return vfork_done();
  if ((catching_ || follows_forks()) && mode == ResumeMode::Continue) {
    // At the end already (its entry shown, or the end itself): the end again.
    const bool from_exit_entry = at_exit_entry_ || (last_reason_ && last_reason_->kind == StopKind::HistoryEnd);
    StopReason r = TRY(resume_catching(stop));
    return from_exit_entry ? r : exit_entry_first(r);
  }
  replay::Motion motion = mode == ResumeMode::Step ? replay::Motion::Step : replay::Motion::Continue;
  return move(&stop, [&] { return t->resume(replay::Direction::Forward, motion); });
}

Result<StopReason> TimelineTarget::reverse_resume(Tid, ResumeMode mode, StopRequest& stop) {
  replay::Timeline* t = TRY(live());
  if (mode == ResumeMode::Stay) return last_stop();
  if (vfork_done_due_) return vfork_done();
  if ((catching_ || follows_forks()) && mode == ResumeMode::Continue) {
    if (!at_exit_entry_ && last_reason_ && last_reason_->kind == StopKind::HistoryEnd) {
      StopReason entry = TRY(exit_entry_first(*last_reason_));
      if (entry.kind == StopKind::SyscallEntry) return entry;
    }
    return reverse_catching(stop);
  }
  replay::Motion motion = mode == ResumeMode::Step ? replay::Motion::Step : replay::Motion::Continue;
  return move(&stop, [&] { return t->resume(replay::Direction::Backward, motion); });
}

// The recorded parent came back from its vfork only once the child had
// exec'd or exited: that is where the vfork stop was, so the resume after
// it, either way, reports it without moving (GDB holds the parent's
// breakpoints out until it hears it).
StopReason TimelineTarget::vfork_done() {
  vfork_done_due_ = false;
  last_reason_ = StopReason::fork(tid_, StopKind::VForkDone, Tid{});
  return *last_reason_;
}

Result<StopReason> TimelineTarget::last_stop() {
  TRY(live());
  if (!moved_ || !last_reason_) return StopReason::with_signal(tid_, SIGTRAP);
  return *last_reason_;
}

Status TimelineTarget::kill() {
  timeline_.reset();
  return ok_status();
}

Status TimelineTarget::detach() {
  timeline_.reset();
  return ok_status();
}

// Breakpoints on code not mapped yet (a shared library before ld.so loads
// it) are kept pending by the timeline and inserted once mapped.
Status TimelineTarget::insert_breakpoint(BreakpointType, RemoteAddr addr, uint32_t) {
  replay::Timeline* t = TRY(live());
  breakpoints_.insert(addr.value);
  return t->add_breakpoint(addr.value);
}

Status TimelineTarget::remove_breakpoint(BreakpointType, RemoteAddr addr, uint32_t) {
  replay::Timeline* t = TRY(live());
  breakpoints_.erase(addr.value);
  return t->remove_breakpoint(addr.value);
}

Status TimelineTarget::insert_watchpoint(WatchType type, RemoteAddr addr, uint64_t length) {
  replay::Timeline* t = TRY(live());
  auto pieces = aligned_pieces(addr.value, length);
  if (pieces.size() > kMaxWatchPieces) {
    return Error::msg("cannot watch " + std::to_string(length) + " bytes here: needs " +
                      std::to_string(pieces.size()) + " debug registers, 4 exist");
  }
  replay::WatchKind kind = watch_kind_for(type);
  for (size_t i = 0; i < pieces.size(); ++i) {
    Status s = t->add_watchpoint(kind, pieces[i].first, pieces[i].second);
    if (!s.ok()) {
      for (size_t j = 0; j < i; ++j) (void)t->remove_watchpoint(kind, pieces[j].first, pieces[j].second);
      return s;
    }
  }
  return ok_status();
}

Status TimelineTarget::remove_watchpoint(WatchType type, RemoteAddr addr, uint64_t length) {
  replay::Timeline* t = TRY(live());
  replay::WatchKind kind = watch_kind_for(type);
  Status first = ok_status();
  for (auto [a, len] : aligned_pieces(addr.value, length)) {
    Status s = t->remove_watchpoint(kind, a, len);
    if (!s.ok() && first.ok()) first = s;
  }
  return first;
}

uint64_t TimelineTarget::global_event(uint64_t checkpoint, uint64_t event) const {
  uint64_t n = 0;
  for (const store::CheckpointInfo& c : reader_.checkpoints()) {
    if (c.id.value >= checkpoint) break;
    n += c.segment_events;
  }
  return n + event;
}

Result<RemoteAddr> TimelineTarget::tls_address(Tid thread, uint64_t offset, RemoteAddr link_map) {
  if (thread != tid_) return Error::msg("no thread " + std::to_string(thread.value) + " in this recording");
  TRY(live());
  TRY(load_registers());
  user_regs_struct regs;
  std::memcpy(&regs, user_regs_.data(), sizeof regs);
  store::ProcessState s = TRY(state_now());
  MemoryReader read = [this](uint64_t addr, std::span<uint8_t> out) -> Status {
    const size_t got = TRY(read_memory(RemoteAddr(addr), out));
    if (got < out.size()) return Error::from_errno("reading " + std::to_string(out.size()) + " bytes", EFAULT);
    return ok_status();
  };
  return thread_local_address(read, regs.fs_base, s.auxv, offset, link_map.value);
}

Status TimelineTarget::goto_text(std::string_view where) {
  auto text = monitor_goto(where);
  if (!text.ok()) return text.take_error();
  return ok_status();
}

}  // namespace slsdbg::gdbserver
