// The Target interface: what a debuggee must offer the remote protocol. The
// replay engine implements it; gdbserver/protocol never knows how.
//
// The required core (pure virtual) is what every client needs: registers by
// number (see x86_64_registers.h), memory, the thread list, resuming forward
// with vCont semantics, the last stop, kill and detach. Everything else is an
// optional capability, reached through an accessor that returns nullptr by
// default; the protocol advertises a feature in qSupported only when its
// accessor returns an object, and answers the packets of an absent capability
// with the empty reply ("not supported").
//
// Signal numbers crossing this interface are Linux numbers; thread ids are
// Linux tids. The protocol layer translates both to the wire.
//
// Contract for an implementation (the replay engine):
//  - All calls come from the one server thread, between packets; no call
//    overlaps another. Nothing here needs to be thread-safe.
//  - Errors are values: return an Error (with errno when one applies) and the
//    client gets an error reply; never abort on a request that cannot be met
//    (writing a register of a replay is a fine thing to refuse).
//  - Registers are numbered as in x86_64_registers.h; read_register_from_areas()
//    turns the kernel's user_regs_struct + XSAVE bytes into wire values.
//  - Every StopReason names the thread that stopped (thread.value > 0) except
//    Exited/Killed. Reaching the end of recorded history going forward is
//    StopKind::HistoryEnd, the start going backward StopKind::HistoryBegin
//    (sent as replaylog:end / replaylog:begin; GDB then prints
//    "No more reverse-execution history.").
//  - A capability object is typically the target itself (inherit the
//    capability class and return `this`), but may be a separate object owned
//    by the target; it must live as long as the target.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/ids.h"
#include "common/result.h"
#include "gdbserver/protocol/stop_reason.h"

namespace slsdbg::gdbserver {

// Asked repeatedly by a running target ("should I stop now?"). The server
// answers true when the client sent an interrupt (0x03) or went away. A target
// that runs for long must poll it often enough to stay responsive (every few
// milliseconds of work is plenty); it then stops and reports SIGINT.
class StopRequest {
 public:
  virtual ~StopRequest() = default;
  virtual bool stop_requested() = 0;
  // A descriptor that becomes readable when the client may have asked to
  // stop (its socket), for a target that waits where it cannot poll: it
  // may poll and peek it from another thread, never read it. -1: none.
  virtual int wake_fd() const { return -1; }
};

// A StopRequest that never asks to stop (tests, scripted seeks).
class NeverStop final : public StopRequest {
 public:
  bool stop_requested() override { return false; }
};

enum class ResumeMode { Stay, Continue, Step };

// What one thread does when the target resumes. `signal` (Linux numbering,
// 0 for none) is delivered to the thread as it resumes.
struct ThreadResume {
  Tid tid;
  ResumeMode mode = ResumeMode::Stay;
  int signal = 0;
};

// A resolved vCont: one entry per thread the target listed, in its order.
// The protocol layer has applied vCont's "first matching action wins" and the
// default action, and turned c/s/C/S into the same form.
struct ResumeRequest {
  std::vector<ThreadResume> threads;
};

struct ThreadInfo {
  Tid tid;
  std::string name;  // may be empty
};

// --- Optional capabilities -------------------------------------------------

enum class BreakpointType { Software, Hardware };

// Z0/Z1 and z0/z1. `kind` is the client's breakpoint kind (1 on x86: int3).
class Breakpoints {
 public:
  virtual ~Breakpoints() = default;
  virtual bool supports(BreakpointType /*type*/) const { return true; }
  virtual Status insert_breakpoint(BreakpointType type, RemoteAddr addr, uint32_t kind) = 0;
  virtual Status remove_breakpoint(BreakpointType type, RemoteAddr addr, uint32_t kind) = 0;
};

enum class WatchType { Write, Read, Access };

// Z2/Z3/Z4 and z2/z3/z4. A triggered watchpoint is reported as a stop of kind
// Watch/ReadWatch/AccessWatch with the data address.
class Watchpoints {
 public:
  virtual ~Watchpoints() = default;
  virtual bool supports(WatchType /*type*/) const { return true; }
  virtual Status insert_watchpoint(WatchType type, RemoteAddr addr, uint64_t length) = 0;
  virtual Status remove_watchpoint(WatchType type, RemoteAddr addr, uint64_t length) = 0;
};

// bc / bs. Runs `thread` backwards (the whole process, all-stop) until a
// breakpoint, a watchpoint, the start of history (StopKind::HistoryBegin) or
// an interrupt.
class ReverseExecution {
 public:
  virtual ~ReverseExecution() = default;
  virtual Result<StopReason> reverse_resume(Tid thread, ResumeMode mode, StopRequest& stop) = 0;
};

// qRcmd ("monitor ..." in GDB, "process plugin packet monitor" in LLDB).
// Returns the text to print; an Error is printed and reported as failure.
class MonitorCommands {
 public:
  virtual ~MonitorCommands() = default;
  virtual Result<std::string> run_monitor_command(std::string_view command_line) = 0;
};

// rr's dialect, so front ends written for rr work unchanged:
//   vRun;<exe>;<arg>  with arg "c<K>" (checkpoint K), "t<N>" (ticks) or "<N>"
//                     (event N), or no argument: restart from the previous
//                     point. Reply: the stop reply of the new position.
//   qRRCmd:<name>:<tid>[:<args>]  e.g. qRRCmd:when:-1 -> "Current event: N"
class HistorySeek {
 public:
  virtual ~HistorySeek() = default;
  enum class SeekKind { Previous, Checkpoint, Event, Ticks };
  struct SeekTarget {
    SeekKind kind = SeekKind::Previous;
    uint64_t value = 0;
  };
  // May take long (restore a checkpoint, replay to an event): poll `stop`.
  virtual Result<StopReason> seek(const SeekTarget& target, StopRequest& stop) = 0;
  // The answer to an rr command (the text the client prints), or an Error
  // for a command the engine does not know.
  virtual Result<std::string> rr_command(std::string_view name, std::string_view args) = 0;
};

// A qXfer object the protocol reads in slices. `annex` is passed through
// (exec-file's is a pid in hex; the others' are empty).
class XferSource {
 public:
  virtual ~XferSource() = default;
  virtual Result<std::string> read_object(std::string_view annex) = 0;
};

// QCatchSyscalls: stop at the entry and return of the listed syscalls
// (empty: all) on forward continues, as `catch syscall` in a live session.
class SyscallCatch {
 public:
  virtual ~SyscallCatch() = default;
  virtual Status catch_syscalls(bool enabled, const std::vector<int64_t>& numbers) = 0;
};

// Files as the debugged process sees them (vFile:open/pread/close). An error
// carries the errno to report.
class TargetFiles {
 public:
  virtual ~TargetFiles() = default;
  virtual Result<std::string> read_file(std::string_view path) = 0;
};

// qGetTLSAddr:THREAD,OFFSET,LM — where a thread-local variable lives: OFFSET
// into `thread`'s TLS block of the module whose link_map is at `link_map`.
// GDB asks the target when it does not run libthread_db itself (it does not
// over `target remote`), for `print` of a __thread variable.
class ThreadLocalStorage {
 public:
  virtual ~ThreadLocalStorage() = default;
  virtual Result<RemoteAddr> tls_address(Tid thread, uint64_t offset, RemoteAddr link_map) = 0;
};

// fork-events+ / vfork-events+: the target stops its process right after a
// fork-family call returned in it (StopKind::Fork or VFork, naming the child)
// and, after a VFork, reports VForkDone at its next forward resume. Off until
// the client says in qSupported that it follows forks; the protocol then
// keeps the child apart (breakpoint removals aimed at it, its detach: the
// child is not the target's process).
class ForkEvents {
 public:
  virtual ~ForkEvents() = default;
  virtual void report_forks(bool fork, bool vfork) = 0;
};

// --- The target ----------------------------------------------------------------

class Target {
 public:
  virtual ~Target() = default;

  // Threads in a stable order; the first is the one reported when nothing else is selected.
  virtual Result<std::vector<ThreadInfo>> threads() = 0;

  // `out` / `value` have exactly the register's size (x86_64_registers.h).
  virtual Status read_register(Tid thread, int number, std::span<uint8_t> out) = 0;
  virtual Status write_register(Tid thread, int number, std::span<const uint8_t> value) = 0;

  // Reads up to out.size() bytes; returns how many were readable from `addr`
  // on (0 is an error for the client). An unreadable start is an Error.
  virtual Result<size_t> read_memory(RemoteAddr addr, std::span<uint8_t> out) = 0;
  virtual Status write_memory(RemoteAddr addr, std::span<const uint8_t> bytes) = 0;

  // Resumes forward until something the client must hear about; polls `stop`.
  virtual Result<StopReason> resume(const ResumeRequest& request, StopRequest& stop) = 0;
  // Why the target is stopped now ('?').
  virtual Result<StopReason> last_stop() = 0;

  // k / vKill and D. For a replay, both end the session; neither may crash
  // when called twice.
  virtual Status kill() = 0;
  virtual Status detach() = 0;

  // Text the user must see with the next stop reply (e.g. why a replay could
  // not go on). The protocol sends it as console output ('O' packets) just
  // before the stop reply, then forgets it. Empty: nothing to say.
  virtual std::string take_stop_notes() { return {}; }

  // Optional capabilities.
  virtual Breakpoints* breakpoints() { return nullptr; }
  virtual Watchpoints* watchpoints() { return nullptr; }
  virtual ReverseExecution* reverse_execution() { return nullptr; }
  virtual MonitorCommands* monitor_commands() { return nullptr; }
  virtual HistorySeek* history_seek() { return nullptr; }
  virtual XferSource* auxv() { return nullptr; }
  virtual XferSource* exec_file() { return nullptr; }
  virtual XferSource* libraries_svr4() { return nullptr; }
  // The siginfo_t (128 bytes) of the signal the thread stopped with: $_siginfo.
  virtual XferSource* siginfo() { return nullptr; }
  // When absent the protocol builds <threads> from threads().
  virtual XferSource* threads_xml() { return nullptr; }
  // The process id to report under multiprocess (GDB's `info proc` needs
  // one); 0: do not offer multiprocess.
  virtual int32_t process_id() { return 0; }
  // vFile: the whole content of a file on the target's side (GDB's `info
  // proc mappings` reads /proc/PID/maps). nullptr: vFile is not supported.
  virtual TargetFiles* target_files() { return nullptr; }
  virtual SyscallCatch* syscall_catch() { return nullptr; }
  virtual ThreadLocalStorage* thread_local_storage() { return nullptr; }
  virtual ForkEvents* fork_events() { return nullptr; }
};

}  // namespace slsdbg::gdbserver
