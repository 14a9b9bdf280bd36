// The deferred half of a tick checkpoint: copying its cold dirty pages on
// another CPU after the tracee has resumed, then checking that none of them
// was written before its copy was taken. The pages were write-protected
// (uffd async) by the checkpoint's PAGEMAP_SCAN, so a write since then shows
// as PAGE_IS_WRITTEN: a page still protected after its copy was taken was
// not written in between, so the copy is its content at the checkpoint.
// A written one makes the checkpoint torn; the caller drops it. Pages are
// copied and checked in chunks of 64, so a write after a page's chunk was
// checked does not tear the checkpoint.
#pragma once

#include <sys/types.h>

#include <functional>
#include <memory>
#include <vector>

#include "common/result.h"
#include "recorder/capture/helper_thread.h"
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
  std::vector<uint64_t> torn;    // pages written before their copy could be confirmed (the first chunk's)
};

class DeferredCopier {
 public:
  // Hands the job to the helper thread and returns at once. One job at a time.
  Status start(DeferredCopyJob job);
  bool outstanding() const { return thread_.outstanding(); }
  // Until the job is done.
  DeferredCopyResult wait();
  // For tests: the copy waits `delay_us` first.
  void set_delay_for_tests(unsigned delay_us) { delay_us_ = delay_us; }
  // Called on the copy thread as soon as a job's copy turns out torn (or
  // failed), so the caller can take the checkpoint again at once.
  void set_on_torn(std::function<void()> f) { on_torn_ = std::move(f); }

 private:
  DeferredCopyResult result_;  // written by the job, read after wait()
  unsigned delay_us_ = 0;
  std::function<void()> on_torn_;
  HelperThread thread_;  // last: joined before what its job uses goes away
};

}  // namespace slsdbg::recorder
