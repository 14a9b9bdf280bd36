// Child processes recorded as members of the same recording
// (store/members.h: REC/members/PID/, one complete recording each).
//
// ptrace attaches a new child to the recorder thread that traces its parent,
// but each member is recorded by a RecordSession of its own, on a recorder
// thread of its own (its own tick, writer and waitpid with __WNOTHREAD). So
// the child is handed over at its first stop: the parent's thread parks it in
// a two-byte loop (`jmp .` written over its pc), detaches, and the member's
// thread seizes it, interrupts it and puts the bytes and the pc back. The
// loop makes no syscall, so nothing of the program runs meanwhile.
//
// A forked child starts at its fork (checkpoint 0 is the child right after
// the call). A vfork-style child (posix_spawn, vfork: the parent's memory is
// shared until it execs) of a single-threaded parent starts at its vfork too
// (origin "vfork"): the parent waits in the kernel meanwhile, so one task
// runs; until its execve the child's capture only reads the shared memory
// (page hashes, no userfaultfd, no staging area, no syscall buffer, no group
// cuts), which leaves the parent's dirty tracking as it was. A threaded
// parent's vfork child runs unrecorded until its execve, and is recorded from
// the new image on (origin "exec").
#pragma once

#include <sched.h>
#include <sys/types.h>
#include <sys/user.h>

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "common/result.h"
#include "process/signal_policy.h"
#include "process/task.h"
#include "process/vdso_patch.h"
#include "recorder/record/group_cut.h"
#include "recorder/record/record_session.h"
#include "recorder/record/shared_baton.h"
#include "store/recording.h"

namespace slsdbg::recorder {

enum class MemberOrigin { Fork, Exec, Vfork };

// "fork", "exec" or "vfork": the member's meta `origin`.
const char* origin_name(MemberOrigin origin);

// What the member's thread needs to take the parked child over.
struct MemberStart {
  pid_t pid = -1;
  pid_t parent = -1;
  MemberOrigin origin = MemberOrigin::Fork;
  user_regs_struct regs{};    // at the handover
  uint64_t loop_addr = 0;     // where `jmp .` was written ...
  uint64_t saved_word = 0;    // ... over this word
  process::Dispositions dispositions;  // Fork: the parent's handlers, which the child inherited
  cpu_set_t writer_cpus;      // where the store's writer thread may run
};

// One member's end, for `record`'s summary.
struct MemberReport {
  pid_t pid = -1;
  std::string error;        // "" when recorded to its end
  RecordOutcome outcome;
};

// Every member of one recording. Thread-safe: any recorder thread hands
// children over.
class MemberGroup {
 public:
  MemberGroup(const RecordOptions& root, const cpu_set_t& writer_cpus);
  ~MemberGroup();
  // On the thread that traces `pid`, stopped at its first stop (Fork, Vfork)
  // or its exec event (Exec): parks and detaches it, and starts its
  // recording.
  Status hand_over(pid_t pid, pid_t parent, MemberOrigin origin, const process::Dispositions& dispositions);
  // Waits until every member's recording has ended (members started
  // meanwhile too).
  void join_all();
  std::vector<MemberReport> reports();
  // The process record started has ended (record_program).
  void root_ended() { root_ended_ = true; }
  // Why member `pid` (forked by `parent`) has left the group, or "": after
  // the root ended, it runs in a session of its own (setsid) and its parent
  // is gone (a daemon's setsid + double fork). Asked at each of its ticks;
  // its recording then ends there with a final checkpoint, and it is killed
  // (traced, it cannot run on without the recorder).
  std::string escaped(pid_t pid, pid_t parent) const;
  // The group's consistent cuts (group_cut.h).
  GroupCuts& cuts() { return cuts_; }
  // Members that share memory run one at a time (shared_baton.h).
  SharedBaton& baton() { return baton_; }

 private:
  std::atomic<bool> root_ended_{false};
  void record(MemberStart start);
  RecordOptions root_;
  cpu_set_t writer_cpus_;
  std::mutex mu_;
  std::vector<std::thread> threads_;
  std::vector<MemberReport> reports_;
  GroupCuts cuts_;
  SharedBaton baton_;
};

// On the member's thread: seizes the parked child, stops it, and puts its
// bytes and registers back. Returns it in a PTRACE_EVENT_STOP.
Result<process::Task> adopt_member(const MemberStart& start);
// A child whose recording could not start: adopted as above and let go, so
// it runs on unrecorded instead of spinning where it was parked.
Status release_parked(const MemberStart& start);

// Makes the adopted child's image ready for capture: a forked child keeps
// the parent's injection page and patched vDSO but drops the staging area it
// shares with the parent; a vfork child keeps all three (they are the
// parent's own); an exec'd one is armed as a spawned program is. All get
// rdtsc trapping back (an unrecorded vfork child had it turned off).
Status prepare_member_image(process::Task& task, MemberOrigin origin, process::VdsoRoute vdso);

// Program, arguments, environment and cwd of `pid`, read from /proc.
store::RecordingMeta member_meta(pid_t pid, pid_t parent, MemberOrigin origin);

// record_session.cc: records the member until it exits.
Result<RecordOutcome> record_member(const RecordOptions& options, const MemberStart& start, MemberGroup* group);

}  // namespace slsdbg::recorder
