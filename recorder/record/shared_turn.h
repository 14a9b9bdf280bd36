// One member's turns at the group's baton (shared_baton.h), and what they
// mean for its log: the RecordSession's hooks for MAP_SHARED memory.
//
// A member takes part while it has memory another member may write
// (shared_view.h); a forked child of such a member has it from its fork on,
// any member from an mmap of such memory on; it stops at an exec or when it
// unmaps the last such mapping. While it is the only one taking part it
// never gives its turn up, and costs nothing.
//
// Where the others' writes enter its history:
// - at the exit of a call it gave its turn up for: they are appended to the
//   call's Syscall event as memory writes, which replay applies like any
//   other output of the call;
// - at a checkpoint, after which it gives its turn up and takes it back:
//   when the others wrote meanwhile it does not run on from that
//   checkpoint, but from a second one taken at once, after a lone
//   ForcedCheckpoint event (replay restores it, as after an unmodelled
//   call).
// Checkpoints hold the shared pages others wrote (capture cannot see them).
//
// Not covered: a syscall of another member that writes shared memory while
// this one runs (read(2) into a shared buffer, racing with the program),
// and a file mapping that a process outside the recording writes.
#pragma once

#include <sys/types.h>

#include <array>
#include <cstdint>

#include "common/result.h"
#include "recorder/capture/checkpoint_capture.h"
#include "recorder/record/shared_baton.h"
#include "recorder/record/shared_view.h"
#include "store/event.h"

namespace slsdbg::recorder {

class SharedTurn {
 public:
  SharedTurn(SharedBaton& baton, pid_t pid) : baton_(baton), pid_(pid), view_(pid) {}
  ~SharedTurn() { baton_.leave(pid_); }
  SharedTurn(const SharedTurn&) = delete;
  SharedTurn& operator=(const SharedTurn&) = delete;

  // Before the member's first checkpoint (or the one after an exec): takes
  // part if it has shared memory, and waits for its turn.
  Status start();
  // After an exec: the new image shares nothing it did not map itself.
  Status on_exec();
  // Takes part (holds a turn) now.
  bool active() const { return active_; }
  // Its program must not run: it takes part and waits for its turn.
  bool needs_turn() const { return active_ && !held_; }

  // At the seccomp stop of a call that goes into the kernel: gives the turn
  // up if the call may wait for another member.
  Status before_kernel(long nr, const std::array<uint64_t, 6>& args);
  // At a call's exit stop, before its event is logged: takes the turn back
  // and adds what the others wrote meanwhile to `ev`. After an
  // address-space call (`address_space`) it joins or leaves, and a new
  // shared mapping's bytes that differ from a fresh one's go to `ev` too.
  Status at_syscall_exit(store::Event& ev, bool address_space);
  // Right after capture.
  Status amend(CapturedCheckpoint& c) { return active_ ? view_.amend(c, !held_) : ok_status(); }
  // After a checkpoint's capture: gives the turn up (the member waits
  // stopped at its checkpoint)...
  Status pass_at_checkpoint();
  // ... and takes it back. true: the others wrote its shared memory
  // meanwhile (then a ForcedCheckpoint and a second checkpoint follow).
  Result<bool> take_back();
  // How long the last take_back() waited for the turn (not the recorder's
  // work: the interval policy leaves it out of a checkpoint's cost).
  uint64_t last_wait_ns() const { return last_wait_ns_; }

 private:
  Status take_part(bool new_read_as_zero);
  Status give_up();
  Result<std::vector<store::MemoryWrite>> take();
  SharedBaton& baton_;
  pid_t pid_;
  SharedView view_;
  bool active_ = false;
  bool held_ = false;
  uint64_t last_wait_ns_ = 0;
};

}  // namespace slsdbg::recorder
