#include "gdbserver/replay/threaded_target.h"

#include <cinttypes>
#include <cstdio>
#include <cstring>

#include "gdbserver/protocol/x86_64_registers.h"
#include "gdbserver/replay/bookmark_name.h"
#include "gdbserver/replay/last_write_report.h"
#include "gdbserver/replay/stop_mapping.h"
#include "gdbserver/replay/threaded_core.h"
#include "gdbserver/replay/tls_address.h"

namespace slsdbg::gdbserver {

namespace {

std::string base_name(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\n')) s.remove_suffix(1);
  return s;
}

constexpr std::string_view kHelp =
    "slsdbg replay monitor commands (a recording with threads):\n"
    "  help              this text\n"
    "  when              the current position (checkpoint, thread, breakpoint arrival)\n"
    "  checkpoints       the recording's checkpoints (* marks the current segment)\n"
    "  goto K            go to checkpoint K's start (every thread as checkpointed)\n"
    "  goto MOMENT       go to a moment `when` printed (K:t=TID:pc=0xPC:n=N...)\n"
    "  goto NAME         go to the moment bookmarked as NAME\n"
    "  bookmark NAME     remember the current moment as NAME (stored in the recording)\n"
    "  bookmarks         list bookmarks\n"
    "  dump PATH         write an ELF core of the current position to PATH (mode 0600):\n"
    "                    every live thread with its registers now\n"
    "  last-write ADDR [LEN]  the last write by any thread to LEN bytes (default 1,\n"
    "                    at most 3 aligned pieces of up to 8) at ADDR before now:\n"
    "                    moment, thread, instruction, file:line (GDB: last-write EXPR)\n";

}  // namespace

ThreadedTarget::ThreadedTarget(store::RecordingReader& reader, std::string exe, std::string auxv, int32_t pid)
    : reader_(reader),
      pid_(pid),
      first_exe_(std::move(exe)),
      first_auxv_(std::move(auxv)),
      auxv_([this]() -> Result<std::string> {
        if (!timeline_) return first_auxv_;
        const store::ProcessState* s = TRY(state_now());
        return std::string(s->auxv.begin(), s->auxv.end());
      }),
      exec_file_([this] { return exe_now(); }) {}

Result<const store::ProcessState*> ThreadedTarget::state_now() {
  const CheckpointId k = timeline_->current_segment();
  if (!state_cache_ || state_cache_->first != k)
    state_cache_.emplace(k, TRY_CTX(reader_.process_state(k), "reading checkpoint " + std::to_string(k.value)));
  return &state_cache_->second;
}

Result<std::string> ThreadedTarget::exe_now() {
  if (!timeline_) return first_exe_;
  const store::ProcessState* s = TRY(state_now());
  return s->exe.empty() ? first_exe_ : s->exe;
}

ThreadedTarget::~ThreadedTarget() = default;

Result<std::unique_ptr<ThreadedTarget>> ThreadedTarget::open(store::RecordingReader& reader) {
  if (reader.checkpoints().empty()) return Error::msg("the recording has no checkpoint");
  store::ProcessState first = TRY_CTX(reader.process_state(CheckpointId(0)), "reading checkpoint 0");
  std::string exe = first.exe.empty() ? reader.meta().program : first.exe;
  const int32_t pid = first.threads.empty() ? 0 : first.threads.front().tid.value;
  std::unique_ptr<ThreadedTarget> target(
      new ThreadedTarget(reader, exe, std::string(first.auxv.begin(), first.auxv.end()), pid));
  ThreadedTarget* self = target.get();
  target->timeline_ =
      TRY(replay::ThreadedTimeline::open(reader, [self] { return self->running_ && self->running_->stop_requested(); },
                                         [self] { return self->running_ ? self->running_->wake_fd() : -1; }));
  return target;
}

Result<replay::ThreadedTimeline*> ThreadedTarget::live() {
  if (!timeline_) return Error::msg("the replay session has ended (killed or detached)");
  return timeline_.get();
}

Result<StopReason> ThreadedTarget::report(Result<replay::ThreadedStop> stop) {
  regs_.clear();
  if (!stop.ok()) {
    // A failed or refused move leaves the replay where it was: GDB is shown
    // the same registers, a caught call still at its glibc site (checked
    // again against the thread's registers).
    if (at_call_site_) {
      const Tid thread(at_call_site_->first);
      at_call_site_.reset();
      show_at_call_site(thread);
    }
    last_reason_.reset();
    return stop.take_error();
  }
  at_call_site_.reset();
  at_exit_entry_ = false;
  MappedStop mapped = map_timeline_stop(stop->stop, stop->thread);
  if (mapped.reason.kind == StopKind::Exec) mapped.reason.exec_path = TRY(exe_now());  // the image of the stop's segment
  vfork_done_due_ = stop->fork_child.has_value() && stop->vfork;
  if (stop->fork_child)
    mapped.reason = StopReason::fork(stop->thread, stop->vfork ? StopKind::VFork : StopKind::Fork, Tid(*stop->fork_child));
  if (stop->syscall_no) {
    mapped.reason.kind = stop->syscall_entry ? StopKind::SyscallEntry : StopKind::SyscallReturn;
    mapped.reason.syscall_no = *stop->syscall_no;
    show_at_call_site(stop->thread);
  }
  notes_ += mapped.note;
  last_reason_ = mapped.reason;
  return mapped.reason;
}

// A caught call made through the syscall buffer stops in the stub's page,
// where GDB has no symbol and no unwind info: the thread is shown at the
// glibc site that called the stub instead, pc after glibc's own `syscall`
// (as a live session shows a syscall stop) and rsp the caller's. Its other
// registers are glibc's there (process/syscallbuf_site.h). Only the
// registers GDB reads change; the next move shows the thread as it is.
void ThreadedTarget::show_at_call_site(Tid thread) {
  replay::ThreadedTimeline* t = timeline_.get();
  const Result<user_regs_struct> regs = t ? t->regs(thread) : Result<user_regs_struct>(Error::msg("no timeline"));
  if (!regs.ok()) return;
  const std::optional<process::SysbufCallSite> site =
      process::sysbuf_call_site(regs->rip, regs->rsp, [t](uint64_t addr, std::span<uint8_t> out) {
        return t->read_memory(addr, out).ok();
      });
  if (site) at_call_site_.emplace(thread.value, *site);
}

std::string ThreadedTarget::take_stop_notes() { return std::exchange(notes_, std::string()); }

Result<std::vector<ThreadInfo>> ThreadedTarget::threads() {
  replay::ThreadedTimeline* t = TRY(live());
  std::vector<ThreadInfo> out;
  // What `ps` would show: the kernel's comm, at most 15 characters.
  const std::string name = base_name(TRY(exe_now())).substr(0, 15);
  for (Tid tid : t->threads()) out.push_back(ThreadInfo{tid, name});
  return out;
}

Status ThreadedTarget::read_register(Tid thread, int number, std::span<uint8_t> out) {
  replay::ThreadedTimeline* t = TRY(live());
  // `g` reads every register: fetch a thread's areas once per stop.
  auto it = regs_.find(thread.value);
  if (it == regs_.end()) {
    user_regs_struct regs = TRY(t->regs(thread));
    if (at_call_site_ && at_call_site_->first == thread.value) {
      regs.rip = at_call_site_->second.pc;
      regs.rsp = at_call_site_->second.sp;
    }
    std::vector<uint8_t> fpu = TRY(t->xsave(thread));
    if (fpu.size() < x86_64::kFxsaveSize) fpu.resize(x86_64::kFxsaveSize, 0);
    std::vector<uint8_t> user(reinterpret_cast<const uint8_t*>(&regs), reinterpret_cast<const uint8_t*>(&regs) + sizeof regs);
    it = regs_.emplace(thread.value, std::make_pair(std::move(user), std::move(fpu))).first;
  }
  return read_register_from_areas(RegisterAreasView{it->second.first, it->second.second}, number, out);
}

Status ThreadedTarget::write_register(Tid, int, std::span<const uint8_t>) {
  return Error::msg("registers of a recording with threads cannot be changed yet (no diversion for threads)");
}

Result<size_t> ThreadedTarget::read_memory(RemoteAddr addr, std::span<uint8_t> out) {
  replay::ThreadedTimeline* t = TRY(live());
  return t->read_memory(addr.value, out);
}

Status ThreadedTarget::write_memory(RemoteAddr, std::span<const uint8_t>) {
  return Error::msg("memory of a recording with threads cannot be changed yet (no diversion for threads)");
}

Result<StopReason> ThreadedTarget::resume(const ResumeRequest& request, StopRequest& stop) {
  replay::ThreadedTimeline* t = TRY(live());
  running_ = &stop;
  struct Done {
    StopRequest*& r;
    ~Done() { r = nullptr; }
  } done{running_};
  // One step names its thread; otherwise any continue runs them all in log order.
  std::optional<Tid> step;
  bool any = false;
  for (const ThreadResume& r : request.threads) {
    if (r.mode == ResumeMode::Step && !step) step = r.tid;
    if (r.mode != ResumeMode::Stay) any = true;
  }
  if (!any) return last_stop();
  if (vfork_done_due_) return vfork_done();
  if (step) return report(t->resume(replay::Direction::Forward, replay::Motion::Step, *step));
  // At the end already (its entry shown, or the end itself): the end again.
  const bool from_exit_entry = at_exit_entry_ || (last_reason_ && last_reason_->kind == StopKind::HistoryEnd);
  StopReason r = TRY(report(t->resume(replay::Direction::Forward, replay::Motion::Continue, Tid{})));
  return from_exit_entry ? r : exit_entry_first(r);
}

// The end after an exit stands at the exit call's entry: with the call
// caught, a continue shows that entry first and the end next; a reverse
// continue from the end shows it without moving (catch_syscalls.cc).
Result<StopReason> ThreadedTarget::exit_entry_first(const StopReason& r) {
  replay::ThreadedTimeline* t = TRY(live());
  const replay::ThreadedStop end = t->last_stop();
  const std::optional<StopReason> entry =
      TRY(exit_call_entry(r, end.stop, [&] { return t->regs(end.thread); }, catching_, caught_));
  if (!entry) return r;
  notes_.clear();  // "the program exited here" comes with the end, next
  at_exit_entry_ = true;
  last_reason_ = *entry;
  return *entry;
}

Result<StopReason> ThreadedTarget::reverse_resume(Tid thread, ResumeMode mode, StopRequest& stop) {
  replay::ThreadedTimeline* t = TRY(live());
  running_ = &stop;
  struct Done {
    StopRequest*& r;
    ~Done() { r = nullptr; }
  } done{running_};
  if (mode == ResumeMode::Stay) return last_stop();
  if (vfork_done_due_) return vfork_done();
  if (mode == ResumeMode::Continue && !at_exit_entry_ && last_reason_ && last_reason_->kind == StopKind::HistoryEnd) {
    StopReason entry = TRY(exit_entry_first(*last_reason_));
    if (entry.kind == StopKind::SyscallEntry) return entry;
  }
  // An error (a reverse step that is not undoing a forward one) is printed
  // by the protocol layer with the error reply.
  const replay::Motion motion = mode == ResumeMode::Step ? replay::Motion::Step : replay::Motion::Continue;
  return report(t->resume(replay::Direction::Backward, motion, thread));
}

// The recorded parent came back from its vfork only once the child had
// exec'd or exited, where the vfork stop was: the resume after it, either
// way, reports that without moving (GDB keeps the parent's breakpoints out
// until it hears it).
Result<StopReason> ThreadedTarget::vfork_done() {
  replay::ThreadedTimeline* t = TRY(live());
  vfork_done_due_ = false;
  last_reason_ = StopReason::fork(t->last_stop().thread, StopKind::VForkDone, Tid{});
  return *last_reason_;
}

void ThreadedTarget::report_forks(bool fork, bool vfork) {
  if (timeline_) timeline_->report_forks(fork, vfork);
}

Result<StopReason> ThreadedTarget::last_stop() {
  replay::ThreadedTimeline* t = TRY(live());
  if (last_reason_) return *last_reason_;
  replay::ThreadedStop s = t->last_stop();
  return StopReason::with_signal(s.thread.value > 0 ? s.thread : Tid(pid_), SIGTRAP);
}

Status ThreadedTarget::kill() {
  timeline_.reset();
  return ok_status();
}

Status ThreadedTarget::detach() {
  timeline_.reset();
  return ok_status();
}

Status ThreadedTarget::insert_breakpoint(BreakpointType, RemoteAddr addr, uint32_t) {
  replay::ThreadedTimeline* t = TRY(live());
  return t->add_breakpoint(addr.value);
}

Status ThreadedTarget::remove_breakpoint(BreakpointType, RemoteAddr addr, uint32_t) {
  replay::ThreadedTimeline* t = TRY(live());
  return t->remove_breakpoint(addr.value);
}

// A range becomes debug-register pieces; all go in or none.
Status ThreadedTarget::insert_watchpoint(WatchType type, RemoteAddr addr, uint64_t length) {
  replay::ThreadedTimeline* t = TRY(live());
  const replay::WatchKind kind = watch_kind_for(type);
  const auto pieces = aligned_pieces(addr.value, length);
  for (size_t i = 0; i < pieces.size(); ++i) {
    Status s = t->add_watchpoint(kind, pieces[i].first, pieces[i].second);
    if (!s.ok()) {
      for (size_t j = 0; j < i; ++j) (void)t->remove_watchpoint(kind, pieces[j].first, pieces[j].second);
      return s;
    }
  }
  return ok_status();
}

Status ThreadedTarget::remove_watchpoint(WatchType type, RemoteAddr addr, uint64_t length) {
  replay::ThreadedTimeline* t = TRY(live());
  const replay::WatchKind kind = watch_kind_for(type);
  for (auto [a, len] : aligned_pieces(addr.value, length)) TRY(t->remove_watchpoint(kind, a, len));
  return ok_status();
}

Result<RemoteAddr> ThreadedTarget::tls_address(Tid thread, uint64_t offset, RemoteAddr link_map) {
  replay::ThreadedTimeline* t = TRY(live());
  user_regs_struct regs = TRY(t->regs(thread));
  MemoryReader read = [t](uint64_t addr, std::span<uint8_t> out) -> Status {
    const size_t got = TRY(t->read_memory(addr, out));
    if (got < out.size()) return Error::from_errno("reading " + std::to_string(out.size()) + " bytes", EFAULT);
    return ok_status();
  };
  const store::ProcessState* s = TRY(state_now());
  return thread_local_address(read, regs.fs_base, s->auxv, offset, link_map.value);
}

Status ThreadedTarget::catch_syscalls(bool enabled, const std::vector<int64_t>& numbers) {
  replay::ThreadedTimeline* t = TRY(live());
  catching_ = enabled;
  caught_ = std::set<int64_t>(numbers.begin(), numbers.end());
  t->catch_syscalls(enabled, caught_);
  return ok_status();
}

Status ThreadedTarget::goto_text(std::string_view where) {
  auto text = monitor_goto(where);
  if (!text.ok()) return text.take_error();
  return ok_status();
}

Result<std::string> ThreadedTarget::monitor_goto(std::string_view where) {
  replay::ThreadedTimeline* t = TRY(live());
  where = trim(where);
  if (where.empty()) return Error::msg("goto needs a checkpoint, a moment or a bookmark (monitor help)");
  std::string text(where);
  if (!all_digits(where) && where.find(':') == std::string_view::npos) text = TRY(bookmarked_moment(reader_, where));
  replay::ThreadedPosition p = TRY(replay::ThreadedPosition::parse(text));
  TRY(report(t->goto_moment(p)));
  return "now at " + t->moment() + "\n";
}

Result<std::string> ThreadedTarget::monitor_bookmark(std::string_view name) {
  replay::ThreadedTimeline* t = TRY(live());
  TRY(check_bookmark_name(name));
  const std::string m = t->moment();
  TRY(reader_.set_bookmark(std::string(name), m));
  return "bookmark " + std::string(name) + " = " + m + "\n";
}

Result<std::string> ThreadedTarget::monitor_bookmarks() {
  auto marks = TRY(reader_.bookmarks());
  if (marks.empty()) return std::string("no bookmarks\n");
  std::string out;
  for (auto& [name, moment] : marks) out += "  " + name + "  " + moment + "\n";
  return out;
}

std::string ThreadedTarget::monitor_checkpoints() {
  std::string out;
  const uint64_t now = timeline_ ? timeline_->current_segment().value : 0;
  for (const store::CheckpointInfo& c : reader_.checkpoints()) {
    char line[128];
    std::snprintf(line, sizeof line, "%s %4" PRIu64 "  %10.3f s  %" PRIu64 " events\n", c.id.value == now ? "*" : " ",
                  c.id.value, static_cast<double>(c.time_ns) / 1e9, c.segment_events);
    out += line;
  }
  return out;
}

Result<std::string> ThreadedTarget::run_monitor_command(std::string_view command_line) {
  std::string_view line = trim(command_line);
  std::string_view verb = line.substr(0, line.find(' '));
  std::string_view rest = trim(line.substr(verb.size()));
  if (verb.empty() || verb == "help") return std::string(kHelp);
  if (verb == "when") {
    replay::ThreadedTimeline* t = TRY(live());
    return "Current position: " + t->position_text() + " (checkpoint " + std::to_string(t->current_segment().value) +
           " of " + std::to_string(t->checkpoint_count()) + ")\nMoment: " + t->moment() + "\n";
  }
  if (verb == "checkpoints") return monitor_checkpoints();
  if (verb == "goto") return monitor_goto(rest);
  if (verb == "bookmark") return monitor_bookmark(rest);
  if (verb == "bookmarks") return monitor_bookmarks();
  if (verb == "last-write") {
    replay::ThreadedTimeline* t = TRY(live());
    auto [addr, len] = TRY_CTX(parse_address_range(rest), "last-write");
    LastWriteReport r = TRY(find_last_write(*t, reader_, addr, len));
    return format_text(r);
  }
  if (verb == "dump") {
    replay::ThreadedTimeline* t = TRY(live());
    if (rest.empty()) return Error::msg("dump needs a file path");
    return write_threaded_core(*t, reader_, std::string(rest));
  }
  return Error::msg("monitor " + std::string(verb) + " is not supported on recordings with threads yet (monitor help lists what is)");
}

}  // namespace slsdbg::gdbserver
