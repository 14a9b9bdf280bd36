// Copying a set of tracee pages into a caller's buffer (inside the stop, or
// in the background for a deferred copy):
// process_vm_readv with up to 1024 remote iovecs per call (adjacent pages
// merged into one iovec), /proc/PID/mem for pages it cannot read (PROT_NONE).
// With CopyThreads::Two, a helper thread on another CPU copies half of a
// large set at the same time (the tracee is stopped, so the second CPU is
// otherwise idle): stop time for 4 MiB drops by about half (docs/performance.md).
#pragma once

#include <sys/types.h>

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

#include "common/result.h"
#include "recorder/process/task.h"

namespace slsdbg::recorder {

enum class CopyThreads { One, Two };

class PageCopier {
 public:
  explicit PageCopier(CopyThreads threads = CopyThreads::One) : threads_(threads) {}
  ~PageCopier();
  PageCopier(const PageCopier&) = delete;
  PageCopier& operator=(const PageCopier&) = delete;

  // Copies `pages` (ascending, page aligned) to dest (pages.size() pages):
  // page i lands at dest + i * 4096. Pages readable by neither path (file
  // pages beyond EOF, vanished memory) are dropped from `pages` and the
  // copies after them move up.
  Status copy(process::Task& task, std::vector<uint64_t>& pages, uint8_t* dest);

 private:
  // Copies pages[first, last) with process_vm_readv; appends indexes it could not read.
  void copy_span(pid_t tid, const std::vector<uint64_t>& pages, size_t first, size_t last, uint8_t* dest,
                 std::vector<size_t>& failed);
  void worker_loop();

  CopyThreads threads_;

  // Helper thread state (CopyThreads::Two).
  std::thread worker_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool job_ready_ = false, job_done_ = false, quit_ = false;
  pid_t job_tid_ = 0;
  const std::vector<uint64_t>* job_pages_ = nullptr;
  uint8_t* job_dest_ = nullptr;
  size_t job_first_ = 0, job_last_ = 0;
  std::vector<size_t> job_failed_;
};

}  // namespace slsdbg::recorder
