// The group's consistent cuts (docs/formats/members.md "Group cuts";
// store/group_cuts.h is the file). Each member is recorded by its own
// RecordSession on its own thread, with its own tick, so two members'
// checkpoints say nothing of each other's order. A group cut makes one:
//
// - A member's tick opens a cut when one is due (every kCutEvery ticks, and
//   only while two or more members live). Every live member is then a
//   participant, and the others' ticks are fired at once.
// - A participant takes its next checkpoint as it would any other (in the
//   stop: never a deferred copy, which could be dropped as torn), then
//   arrives and waits with its program still stopped.
// - When the last participant arrives every member is stopped at its
//   checkpoint at the same moment: the cut is complete and appended to
//   REC/group_cuts. Nothing a member received before its checkpoint can
//   have been sent after another's, which is what consistent means.
// - A participant that cannot stop in time (blocked in a call that is not
//   interrupted for a tick, e.g. nanosleep or poll) abandons the cut at its
//   deadline; everyone goes on, and the next try comes later (backing off).
// - A member that exits before arriving leaves the cut (it is gone at the
//   cut's moment); a child handed over during an open cut joins it and
//   arrives with its checkpoint 0.
#pragma once

#include <sys/types.h>

#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>

#include "common/result.h"

namespace slsdbg::recorder {

class GroupCuts {
 public:
  // `rec`: the root recording (REC/group_cuts); `interval_ns`: the tick.
  GroupCuts(std::string rec, uint64_t interval_ns);

  // A member is on its way (its parent's thread hands it over): a cut opened
  // from now on waits for it too.
  void expect(pid_t pid);
  // Its session ticks: `tick_owner` is the thread whose tick makes it stop.
  void join(pid_t pid, pid_t tick_owner);
  // Its session ended (the process exited or was killed, or its recording
  // failed). Idempotent.
  void leave(pid_t pid);
  // At each tick of member `pid`: opens a cut if one is due.
  void on_tick(pid_t pid);
  // A cut waits for `pid`'s next checkpoint.
  bool pending(pid_t pid);
  // After `pid`'s checkpoint `checkpoint` was captured, its program stopped:
  // waits until the cut is complete or abandoned. True: it is in a cut.
  bool arrive(pid_t pid, uint64_t checkpoint);

  uint64_t completed();
  uint64_t abandoned();
  // A cut that was complete but could not be written (the first such error).
  std::string error();

  static constexpr uint64_t kCutEvery = 10;  // ticks between cuts

 private:
  struct Seat {
    pid_t tick_owner = 0;  // 0: not ticking yet (being handed over)
    bool in_cut = false;
    bool arrived = false;
    uint64_t checkpoint = 0;
  };
  void finish_locked(bool complete);
  void maybe_complete_locked();

  const std::string rec_;
  const uint64_t interval_ns_;
  bool off_ = false;  // SLSDBG_GROUP_CUTS=off
  std::mutex mu_;
  std::condition_variable cv_;
  std::map<pid_t, Seat> seats_;  // live members
  bool open_ = false;
  uint64_t generation_ = 0;   // counts opened cuts; a waiter watches its own
  uint64_t last_complete_gen_ = 0;
  uint64_t deadline_ns_ = 0;  // CLOCK_MONOTONIC
  uint64_t next_due_ns_ = 0;
  uint64_t backoff_ = 1;
  uint64_t completed_ = 0;
  uint64_t abandoned_ = 0;
  std::string error_;
};

}  // namespace slsdbg::recorder
