// The protocol's Target over a recording made with `record --threads`
// (engine/replay/threaded_timeline.h): every live thread with its own
// registers, continue and stepi forward with the threads scheduled from the
// log, breakpoints hit by any thread (the stop names it), reverse-continue
// to the last earlier hit, `monitor goto K`; watchpoints (write, read,
// access) forward and backward, stopping in the accessing thread; `catch
// syscall` forward and backward (the logged calls' entries and returns);
// fork and vfork stops, and exec stops (GDB reloads the program), both ways.
//
// Refused with a message, for now: reverse steps into a segment where the
// thread did not run or from a caught call, register and memory writes (no
// diversion yet). rr's vRun seek is absent.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>

#include "engine/replay/threaded_timeline.h"
#include "gdbserver/protocol/target.h"
#include "gdbserver/replay/recording_xfer.h"
#include "process/syscallbuf_site.h"
#include "store/recording.h"

namespace slsdbg::gdbserver {

class ThreadedTarget final : public Target, public Breakpoints, public Watchpoints, public ReverseExecution,
                             public MonitorCommands, public ThreadLocalStorage, public SyscallCatch,
                             public ForkEvents, public TargetFiles {
 public:
  static Result<std::unique_ptr<ThreadedTarget>> open(store::RecordingReader& reader);
  ~ThreadedTarget() override;

  // Before a client connects (slsdbg replay --at K): a checkpoint number.
  Status goto_text(std::string_view where);

  // `catch syscall`: the logged calls of every thread (threaded_timeline.h).
  SyscallCatch* syscall_catch() override { return this; }
  Status catch_syscalls(bool enabled, const std::vector<int64_t>& numbers) override;
  // Fork and vfork stops: the logged calls that made a process, both ways.
  ForkEvents* fork_events() override { return this; }
  void report_forks(bool fork, bool vfork) override;

  Result<std::vector<ThreadInfo>> threads() override;
  Status read_register(Tid thread, int number, std::span<uint8_t> out) override;
  Status write_register(Tid thread, int number, std::span<const uint8_t> value) override;
  Result<size_t> read_memory(RemoteAddr addr, std::span<uint8_t> out) override;
  Status write_memory(RemoteAddr addr, std::span<const uint8_t> bytes) override;
  Result<StopReason> resume(const ResumeRequest& request, StopRequest& stop) override;
  Result<StopReason> last_stop() override;
  Status kill() override;
  Status detach() override;
  std::string take_stop_notes() override;

  Breakpoints* breakpoints() override { return this; }
  Watchpoints* watchpoints() override { return this; }
  ReverseExecution* reverse_execution() override { return this; }
  MonitorCommands* monitor_commands() override { return this; }
  XferSource* auxv() override { return &auxv_; }
  XferSource* exec_file() override { return &exec_file_; }
  int32_t process_id() override { return pid_; }
  ThreadLocalStorage* thread_local_storage() override { return this; }
  // --- ThreadLocalStorage (tls_address.h): `print` of a __thread variable.
  Result<RemoteAddr> tls_address(Tid thread, uint64_t offset, RemoteAddr link_map) override;

  Status insert_breakpoint(BreakpointType type, RemoteAddr addr, uint32_t kind) override;
  Status remove_breakpoint(BreakpointType type, RemoteAddr addr, uint32_t kind) override;
  // x86 debug registers cannot watch reads alone: refusing read watchpoints
  // makes GDB use an access one and drop the hits that changed the value
  // (writes), as it does on a native x86 target.
  using Breakpoints::supports;
  bool supports(WatchType type) const override { return type != WatchType::Read; }
  Status insert_watchpoint(WatchType type, RemoteAddr addr, uint64_t length) override;
  Status remove_watchpoint(WatchType type, RemoteAddr addr, uint64_t length) override;
  Result<StopReason> reverse_resume(Tid thread, ResumeMode mode, StopRequest& stop) override;
  Result<std::string> run_monitor_command(std::string_view command_line) override;
  // vFile (target_files.cc): /proc/PID/maps of the moment, other files from
  // this machine.
  TargetFiles* target_files() override { return this; }
  Result<std::string> read_file(std::string_view path) override;

 private:
  ThreadedTarget(store::RecordingReader& reader, std::string exe, std::string auxv, int32_t pid);
  Result<replay::ThreadedTimeline*> live();
  Result<StopReason> report(Result<replay::ThreadedStop> stop);
  Result<std::string> monitor_goto(std::string_view where);
  Result<std::string> monitor_bookmark(std::string_view name);
  Result<std::string> monitor_bookmarks();
  std::string monitor_checkpoints();

  store::RecordingReader& reader_;
  std::unique_ptr<replay::ThreadedTimeline> timeline_;
  int32_t pid_;
  std::optional<StopReason> last_reason_;
  StopRequest* running_ = nullptr;  // the client's interrupt source during a move
  std::string notes_;
  bool vfork_done_due_ = false;  // the resume after a vfork stop reports vforkdone there
  Result<StopReason> vfork_done();
  // catch syscall's filter, kept for the exit call's entry at the end of
  // history (shown first when caught, as TimelineTarget does).
  bool catching_ = false;
  std::set<int64_t> caught_;
  bool at_exit_entry_ = false;
  Result<StopReason> exit_entry_first(const StopReason& r);
  // A caught call in the syscall buffer's stub, shown at its glibc site: the
  // thread and the registers that change (show_at_call_site).
  std::optional<std::pair<int32_t, process::SysbufCallSite>> at_call_site_;
  void show_at_call_site(Tid thread);
  // The image of the checkpoint the session is in (an execve changes it):
  // checkpoint 0's until the timeline opens.
  std::string first_exe_, first_auxv_;
  // The current checkpoint's state, read once per checkpoint: GDB asks for
  // the threads (and their names) at every stop.
  std::optional<std::pair<CheckpointId, store::ProcessState>> state_cache_;
  Result<const store::ProcessState*> state_now();
  Result<std::string> exe_now();
  ComputedXfer auxv_;
  ComputedXfer exec_file_;
  std::map<int32_t, std::pair<std::vector<uint8_t>, std::vector<uint8_t>>> regs_;  // tid -> user regs, XSAVE
};

}  // namespace slsdbg::gdbserver
