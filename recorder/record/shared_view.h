// The shared memory of one member as that member sees it (shared_baton.h):
// its MAP_SHARED mappings that another member may write, a copy of their
// bytes as of when it last gave its turn up, and the pages its next
// checkpoint must hold because others wrote them.
//
// Checkpoint capture finds the pages a process wrote through its own page
// tables; another process's writes to the same shared pages do not show
// there. So what the others wrote is found here, by comparing with the copy
// when the member takes its turn back, and added to the next checkpoint
// (amend). While a member waits for its turn its memory may change under
// it: a checkpoint taken then gets the copy's bytes for shared pages, which
// are the bytes the member saw and replay has.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <set>
#include <vector>

#include "common/result.h"
#include "recorder/capture/checkpoint_capture.h"
#include "store/event.h"
#include "store/process_state.h"

namespace slsdbg::recorder {

// Whether a mapping may be written by another member: MAP_SHARED and
// writable here, or readable shmem (/dev/shm, memfd, SysV) another may
// write. The capture's own staging area is not.
bool shared_with_others(const store::Mapping& m);

class SharedView {
 public:
  explicit SharedView(pid_t pid) : pid_(pid) {}

  // Re-reads the mappings. New ones go whole into the next checkpoint; with
  // `new_read_as_zero` (after mmap) their copy is all zero, so that their
  // first changes() logs what differs from a fresh mapping.
  Status refresh(bool new_read_as_zero);
  bool empty() const { return ranges_.empty(); }
  uint64_t bytes() const;

  // The copy is the memory now (the member gives its turn up).
  Status snapshot();
  // Where the memory differs from the copy, as writes (the member took its
  // turn back); their pages go into the next checkpoint. The copy is then
  // stale until the next snapshot.
  Result<std::vector<store::MemoryWrite>> changes();
  // A captured checkpoint gets the pages others wrote and, with `from_copy`
  // (the member does not hold its turn), the copy's bytes for every shared
  // page it holds.
  Status amend(CapturedCheckpoint& c, bool from_copy);

 private:
  struct Range {
    uint64_t start = 0, end = 0;
    std::vector<uint8_t> copy;
    bool copy_valid = false;
  };
  const Range* range_at(uint64_t addr) const;
  pid_t pid_;
  std::vector<Range> ranges_;  // ascending
  std::set<uint64_t> to_store_;
};

}  // namespace slsdbg::recorder
