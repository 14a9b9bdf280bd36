// Lazy fill: instead of writing every page before the restored process may
// run, its large private anonymous regions are registered with userfaultfd
// (MISSING mode). A thread of this process then serves each first touch from
// the store (UFFDIO_COPY, or UFFDIO_ZEROPAGE for zero pages) and, in between,
// fills the rest in address order, so that after a while every page is
// present and the regions are unregistered. Restore latency becomes map +
// state, independent of memory size.
//
// The userfaultfd is created inside the restored process (injected syscall)
// and taken over with pidfd_getfd, as DESIGN.md describes for dirty tracking.
// The LazyFiller must outlive the restored process's use of those regions or
// reach filled(); its destructor waits for the fill to complete.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

#include "common/fd.h"
#include "common/ids.h"
#include "common/result.h"
#include "store/recording.h"

namespace slsdbg::restore {

class RemoteCalls;

struct LazyStats {
  uint64_t faults_served = 0;
  uint64_t pages_copied = 0;
  uint64_t pages_zeroed = 0;
};

class LazyFiller {
 public:
  LazyFiller() = default;
  ~LazyFiller();
  LazyFiller(const LazyFiller&) = delete;
  LazyFiller& operator=(const LazyFiller&) = delete;

  // Creates the userfaultfd in the stopped tracee and registers `ranges`
  // (page-aligned [start,end), private anonymous, already mapped).
  Status attach(RemoteCalls& rc, std::vector<std::pair<uint64_t, uint64_t>> ranges);
  // Starts serving faults and filling from checkpoint k of `reader`, which
  // must stay alive until filled() or destruction.
  Status start(const store::RecordingReader& reader, CheckpointId k);
  // Blocks until every registered page is present (or the process is gone).
  void wait_filled();
  bool filled() const { return done_.load(); }
  LazyStats stats() const;
  bool active() const { return uffd_.valid(); }

 private:
  void run();
  bool serve_faults(int timeout_ms);
  bool fill_range(uint64_t addr, size_t len, bool from_fault);

  UniqueFd uffd_;
  std::vector<std::pair<uint64_t, uint64_t>> ranges_;
  const store::RecordingReader* reader_ = nullptr;
  CheckpointId k_;
  std::thread thread_;
  std::atomic<bool> done_{false};
  mutable std::mutex mu_;
  LazyStats stats_;
  std::vector<uint8_t> buf_;
};

}  // namespace slsdbg::restore
