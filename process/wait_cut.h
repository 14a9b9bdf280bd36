// A user's interrupt that ends a long ptrace wait (#20). A replay deep
// inside one long CPU-bound segment sits in Task::wait for seconds with no
// event at which to poll the debugger, so the interrupt waits for the
// segment's end. A WaitCut, made by the thread that waits for the length of
// one move, runs a watcher thread that polls the debugger's descriptor.
// Once the debugger's interrupt byte (0x03) or a hang-up is there, a wait
// of this thread that runs the program (inside a ProgramRun) and has
// lasted kLongWait is cut: the waited thread gets a marked SIGSTOP (it
// cannot be blocked), which stops it at once, and Task::wait returns an
// error with errno EINTR, leaving it in that signal-delivery stop. The
// process is then in mid-run, at no moment the caller can name: its owner
// abandons it and lands elsewhere (engine/replay/timeline.cc).
//
// Why a signal to the tracee and not an EINTR of our own waitpid: a signal
// to the tracer without SA_RESTART would break whatever other syscall it
// happened to interrupt, and only the tracer thread may PTRACE_INTERRUPT.
// Waits shorter than kLongWait (injected syscalls, single steps, forks of
// kept copies) are never cut, so the processes that outlive a move
// (snapshots, kept copies) are never left in mid-injection.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <memory>

namespace slsdbg::process {

class WaitCut {
 public:
  static constexpr std::chrono::milliseconds kLongWait{30};
  // wake_fd < 0: inert (nothing watched, nothing cut). One per thread at a time.
  explicit WaitCut(int wake_fd);
  ~WaitCut();
  WaitCut(const WaitCut&) = delete;
  WaitCut& operator=(const WaitCut&) = delete;

  // A wait was cut: the current process is in mid-run.
  bool fired() const;
  // Stops the watcher; no wait is cut any more (the caller's landing runs
  // the program again).
  void disarm();
  // The caller itself read the interrupt (it polls the debugger at events):
  // cut the long waits from now on, as if the watcher had seen it.
  void request();

  struct State;

 private:
  std::shared_ptr<State> state_;
};

// The waits inside run the program (a segment's replay): only those may be
// cut. Nests; a no-op without a WaitCut on this thread.
class ProgramRun {
 public:
  ProgramRun();
  ~ProgramRun();
  ProgramRun(const ProgramRun&) = delete;
  ProgramRun& operator=(const ProgramRun&) = delete;

 private:
  WaitCut::State* state_;
};

// For Task::wait.
namespace wait_cut {
// Publishes this thread's wait on tid for the watcher while alive.
class Window {
 public:
  Window(pid_t tgid, pid_t tid);
  ~Window();
  Window(const Window&) = delete;
  Window& operator=(const Window&) = delete;

 private:
  WaitCut::State* state_;
};
// tid is in a signal-delivery stop of SIGSTOP: is it the watcher's?
bool is_cut_signal(pid_t tid);
// The watcher's signal arrived: should this thread's wait end (true, and
// the WaitCut then says fired()), or was it stale (the wait it was meant
// for had already ended) and the thread resumes and waits on?
bool cut_now();
}  // namespace wait_cut

}  // namespace slsdbg::process
