// The protocol's Target over the replay engine's Timeline: one recorded
// thread, read-only registers and memory at the current moment, forward and
// reverse execution, breakpoints and watchpoints, monitor commands, rr's
// history seek, and auxv / exec-file from the recording.
//
// A replay cannot be changed: writes to registers or memory, and GDB's
// inferior calls, run in a diversion (diversion.h), discarded at the next move. Signals a client asks to deliver on resume are
// ignored: what the program received is history (a recorded signal stops
// the replay first, so GDB can show it, and resuming delivers it).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "engine/replay/timeline.h"
#include "gdbserver/protocol/target.h"
#include "gdbserver/replay/diversion.h"
#include "gdbserver/replay/recording_xfer.h"
#include "store/recording.h"

namespace slsdbg::gdbserver {

class TimelineTarget final : public Target,
                             public Breakpoints,
                             public Watchpoints,
                             public ReverseExecution,
                             public MonitorCommands,
                             public HistorySeek,
                             public TargetFiles,
                             public SyscallCatch,
                             public ThreadLocalStorage,
                             public ForkEvents {
 public:
  // `reader` must outlive the target; bookmarks are written through it.
  static Result<std::unique_ptr<TimelineTarget>> open(store::RecordingReader& reader);
  ~TimelineTarget() override;

  // Moves before a client connects (slsdbg replay --goto / --at).
  Status goto_text(std::string_view where);  // "K", a moment "K:E:0xPC:N" or a bookmark name

  // --- Target
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
  HistorySeek* history_seek() override { return this; }
  XferSource* auxv() override { return &auxv_; }
  XferSource* exec_file() override { return &exec_file_; }
  XferSource* siginfo() override { return &siginfo_; }
  int32_t process_id() override { return tid_.value; }
  TargetFiles* target_files() override { return this; }
  SyscallCatch* syscall_catch() override { return this; }
  ThreadLocalStorage* thread_local_storage() override { return this; }
  ForkEvents* fork_events() override { return this; }
  // --- ForkEvents (catch_syscalls.cc): fork and vfork stops from the log.
  void report_forks(bool fork, bool vfork) override;
  // --- ThreadLocalStorage (tls_address.h): `print errno` and other __thread variables.
  Result<RemoteAddr> tls_address(Tid thread, uint64_t offset, RemoteAddr link_map) override;
  // --- SyscallCatch (catch_syscalls.cc): recorded syscalls as catchpoints.
  Status catch_syscalls(bool enabled, const std::vector<int64_t>& numbers) override;
  // --- TargetFiles (target_files.cc): /proc/PID/maps of the moment, other
  // files from this machine.
  Result<std::string> read_file(std::string_view path) override;

  // --- Breakpoints (software and hardware both become the timeline's breakpoints)
  Status insert_breakpoint(BreakpointType type, RemoteAddr addr, uint32_t kind) override;
  Status remove_breakpoint(BreakpointType type, RemoteAddr addr, uint32_t kind) override;
  // --- Watchpoints (split into aligned 1/2/4/8-byte pieces; 4 debug registers)
  Status insert_watchpoint(WatchType type, RemoteAddr addr, uint64_t length) override;
  Status remove_watchpoint(WatchType type, RemoteAddr addr, uint64_t length) override;
  // --- ReverseExecution
  Result<StopReason> reverse_resume(Tid thread, ResumeMode mode, StopRequest& stop) override;
  // --- MonitorCommands (monitor.cc)
  Result<std::string> run_monitor_command(std::string_view command_line) override;
  // --- HistorySeek (history_seek.cc)
  Result<StopReason> seek(const SeekTarget& target, StopRequest& stop) override;
  Result<std::string> rr_command(std::string_view name, std::string_view args) override;

 private:
  TimelineTarget(store::RecordingReader& reader, std::string exe, std::vector<uint8_t> auxv);
  Result<replay::Timeline*> live();
  // Runs one move of the timeline with `stop` as its interrupt source and
  // turns the result into a stop reply (plus a note for the user).
  Result<StopReason> move(StopRequest* stop, const std::function<Result<replay::TimelineStop>()>& fn);
  Status load_registers();
  // rr's global event numbers: events of all earlier segments + E.
  uint64_t global_event(uint64_t checkpoint, uint64_t event) const;
  Result<replay::Moment> moment_after_global_event(uint64_t n) const;
  Result<std::string> monitor_goto(std::string_view where);
  std::string monitor_checkpoints();
  Result<std::string> monitor_when();
  Result<std::string> monitor_bookmark(std::string_view name);
  Result<std::string> monitor_bookmarks();
  Result<std::string> monitor_dump(std::string_view path);
  Result<std::string> monitor_last_write(std::string_view args);
  Result<std::string> monitor_stats();

  store::RecordingReader& reader_;
  std::unique_ptr<replay::Timeline> timeline_;
  std::string exe_;
  Tid tid_;
  std::string thread_name_;
  StopRequest* running_ = nullptr;  // the client's interrupt source during a move
  bool moved_ = false;              // before the first move, '?' is a plain stop
  std::optional<StopReason> last_reason_;
  std::string notes_;
  // Set while stopped at a divergence: no moment exists there.
  std::optional<replay::Divergence> diverged_;
  // Registers of the current moment, read once per stop.
  bool regs_valid_ = false;
  std::vector<uint8_t> user_regs_;
  std::vector<uint8_t> fpu_;
  // The current segment's checkpoint's (an execve starts a checkpoint).
  ComputedXfer auxv_;
  ComputedXfer exec_file_;
  Result<store::ProcessState> state_now();
  // Inferior calls and writes (diversion.h); reset by every move.
  std::unique_ptr<Diversion> diversion_;
  std::set<uint64_t> breakpoints_;  // GDB's software/hardware breakpoints, for the diversion
  Result<Diversion*> diversion();
  ComputedXfer siginfo_{[this] { return siginfo_bytes(); }};
  Result<std::string> siginfo_bytes();  // monitor.cc
  // catch syscall: the filter, and the syscall whose entry GDB stopped at;
  // fork stops: which ones the client follows, and a vforkdone to report.
  bool catching_ = false;
  std::set<int64_t> caught_;  // empty: every syscall
  bool fork_stops_ = false, vfork_stops_ = false;
  bool vfork_done_due_ = false;
  struct CaughtCall {
    replay::Moment entry;  // its `syscall` instruction about to run
    store::Event event;
  };
  std::optional<CaughtCall> at_syscall_entry_;
  std::optional<CaughtCall> at_syscall_return_;  // ... or at the return of
  bool catches(const store::Event& ev) const;
  bool stops_at(const store::Event& ev) const;
  Result<std::optional<StopReason>> fork_stop(const store::Event& ev);
  Result<std::optional<CaughtCall>> next_caught_syscall(const replay::Moment& from);
  Result<std::optional<CaughtCall>> previous_caught_syscall(std::pair<uint64_t, uint64_t> before);
  Result<StopReason> to_return(const CaughtCall& call, StopRequest& stop);
  Result<StopReason> run_to(const replay::Moment& m, replay::Direction direction, StopRequest& stop, bool& arrived);
  Result<StopReason> resume_catching(StopRequest& stop);
  Result<StopReason> reverse_catching(StopRequest& stop);
  Result<std::optional<StopReason>> to_call_site(StopRequest& stop);
  // The end after an exit stands at the exit call's entry: shown as that
  // entry first when the call is caught (catch_syscalls.cc).
  bool at_exit_entry_ = false;
  Result<StopReason> exit_entry_first(const StopReason& r);
  bool follows_forks() const { return fork_stops_ || vfork_stops_; }
  StopReason vfork_done();
};

}  // namespace slsdbg::gdbserver
