// Child processes of the recorded program (fork, vfork, clone without
// CLONE_THREAD). With a MemberGroup (member.h) each child is handed over at
// its first stop to a recording of its own (a vfork-style child of a
// threaded process at its execve); until then, and without a group, a
// child runs unrecorded: its effects reach the recorded process through
// logged syscalls (pipe reads, wait4/waitid results) and signals (SIGCHLD),
// as any other process's would.
//
// A child inherits the seccomp filter (SECCOMP_RET_TRACE gives ENOSYS without
// a tracer) and rdtsc trapping, so it stays traced (PTRACE_O_TRACEFORK ...
// auto-attach, grandchildren too): the recorder resumes each of its stops and
// never logs or checkpoints it. Threads (CLONE_THREAD, or CLONE_VM without
// CLONE_VFORK) are refused.
#pragma once

#include <sys/types.h>

#include <array>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "common/result.h"
#include "process/signal_policy.h"
#include "process/syscalls/fork_calls.h"
#include "store/event.h"
#include "store/summary.h"

namespace slsdbg::recorder {

class MemberGroup;
enum class MemberOrigin;  // member.h

using process::is_fork_call;  // process/syscalls/fork_calls.h

// Why the recorded process's fork-family call `nr` cannot be recorded, or ""
// when the child may run unrecorded. Read at its seccomp stop (clone3's
// argument struct and the memory map are read from `pid`).
// With `threads_allowed` (record --threads), a pthread-style clone
// (CLONE_THREAD with the usual sharing) is allowed too.
std::string fork_refusal(long nr, const std::array<uint64_t, 6>& args, pid_t pid, bool threads_allowed = false);
// Whether fork-family call `nr` of `pid` creates a thread (CLONE_THREAD):
// such a call returns at once, it never waits for its child.
bool creates_thread(long nr, const std::array<uint64_t, 6>& args, pid_t pid);

// The recording's summary key for the number of children the recorded
// process started, so `ls` need not read the log.
inline constexpr const char* kChildrenSummaryKey = store::kChildrenStartedKey;

// The traced processes that are not the recorded one.
class Children {
 public:
  // `group`: children are recorded as members (null: they run unrecorded);
  // `dispositions`: the recorded process's handlers, which a fork copies.
  explicit Children(pid_t recorded, MemberGroup* group = nullptr, const process::Dispositions* dispositions = nullptr)
      : recorded_(recorded), group_(group), dispositions_(dispositions) {}
  // The recorded process's fork/vfork/clone event named `child`.
  void adopt(pid_t child);
  // Handles one wait status of a traced pid other than the recorded one:
  // resumes it (delivering its signals), or forgets it when it is gone.
  Status on_stop(pid_t pid, int status);
  // After the recorded process ended: keeps serving the children still
  // running until they have all exited (they would fail every trapped
  // syscall without a tracer).
  Status drain();
  const std::vector<pid_t>& started() const { return started_; }

 private:
  // True when the child was handed over to a member recording.
  Result<bool> first_stop(pid_t pid);
  Status hand_over(pid_t pid, MemberOrigin origin);
  pid_t recorded_;
  MemberGroup* group_;
  const process::Dispositions* dispositions_;
  std::vector<pid_t> started_;  // children of the recorded process, in order
  std::set<pid_t> seen_;        // every traced child that has stopped (grandchildren too)
};

}  // namespace slsdbg::recorder
