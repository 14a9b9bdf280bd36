// The deferred half of a tick checkpoint: copying its cold dirty pages on
// another CPU after the tracee has resumed, then checking that none of them
// was written before its copy was taken. The pages were write-protected
// (uffd async) by the checkpoint's PAGEMAP_SCAN, so a write since then shows
// as PAGE_IS_WRITTEN: a page still protected after its copy was taken was
// not written in between, so the copy is its content at the checkpoint.
// A written one makes the checkpoint torn; the caller drops it.
#pragma once

#include <sys/types.h>

#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "common/result.h"
#include "recorder/capture/page_buffer_pool.h"

namespace slsdbg::recorder {

struct DeferredCopyJob {
  pid_t pid = -1;
  int pagemap_fd = -1;           // borrowed; the process's /proc/PID/pagemap
  std::vector<uint64_t> pages;   // ascending; every one watched by the tracker
  uint8_t* dest = nullptr;       // pages.size() pages inside `buffer`
  std::shared_ptr<PageBuffer> buffer;
};

struct DeferredCopyResult {
  Status status = ok_status();   // an error other than a torn page
  std::vector<uint64_t> copied;  // the pages read (unreadable ones dropped); copy i at dest + i * 4096
  std::vector<uint64_t> torn;    // pages written before their copy could be confirmed
};

class DeferredCopier {
 public:
  DeferredCopier() = default;
  ~DeferredCopier();
  DeferredCopier(const DeferredCopier&) = delete;
  DeferredCopier& operator=(const DeferredCopier&) = delete;

  // Hands the job to the copy thread (started on first use, on the CPUs
  // other than the caller's) and returns at once. One job at a time.
  Status start(DeferredCopyJob job);
  bool outstanding() const { return outstanding_; }
  // Until the job is done. For tests: the copy waits `delay_us` first.
  DeferredCopyResult wait();
  void set_delay_for_tests(unsigned delay_us) { delay_us_ = delay_us; }
  // Called on the copy thread as soon as a job's copy turns out torn (or
  // failed), so the caller can take the checkpoint again at once.
  void set_on_torn(std::function<void()> f) { on_torn_ = std::move(f); }

 private:
  void thread_main();

  std::thread thread_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::optional<DeferredCopyJob> job_;        // guarded by mu_
  std::optional<DeferredCopyResult> result_;  // guarded by mu_
  bool quit_ = false;                         // guarded by mu_
  unsigned delay_us_ = 0;
  std::function<void()> on_torn_;
  bool outstanding_ = false;  // caller's thread only: started, not yet waited for
};

}  // namespace slsdbg::recorder
