#include "recorder/capture/deferred_copy.h"

#include <unistd.h>

#include <algorithm>

#include "process/task.h"
#include "recorder/capture/page_copier.h"
#include "recorder/capture/pagemap_scan.h"

namespace slsdbg::recorder {

namespace {

// Pages copied and then checked together. A page written after its own copy
// is harmless; only the check cannot tell that from a write before it, so a
// check right after each chunk's copy tears the checkpoint only for writes
// that came before (or within a chunk of) the page's copy, not for every
// write during the whole copy and check (~1.2 ms for 1,000 pages of 1 GiB,
// which tore ~15% of bench (b)'s deferrals). Ascending pages make each
// chunk's check walk only its own part of the address space.
constexpr size_t kChunkPages = 64;

DeferredCopyResult run_job(DeferredCopyJob& job) {
  DeferredCopyResult r;
  process::Task task(Tid(job.pid), job.pid);
  PageCopier copier;
  for (size_t at = 0; at < job.pages.size(); at += kChunkPages) {
    std::vector<uint64_t> chunk(job.pages.begin() + at, job.pages.begin() + std::min(at + kChunkPages, job.pages.size()));
    // Unreadable pages leave the chunk, so copies stay contiguous in dest.
    r.status = copier.copy(task, chunk, job.dest + r.copied.size() * kPageSize);
    if (!r.status.ok()) return r;
    // Written since the checkpoint's scan, i.e. possibly before the copy above.
    Result<std::vector<uint64_t>> torn = written_among(job.pagemap_fd, chunk);
    if (!torn.ok()) {
      r.status = torn.take_error();
      return r;
    }
    r.copied.insert(r.copied.end(), chunk.begin(), chunk.end());
    if (!torn->empty()) {
      r.torn = std::move(*torn);  // the checkpoint is dropped: the rest need no copy
      return r;
    }
  }
  return r;
}

}  // namespace

Status DeferredCopier::start(DeferredCopyJob job) {
  return thread_.start([this, job = std::move(job)]() mutable {
    if (delay_us_) usleep(delay_us_);
    result_ = run_job(job);
    if ((!result_.status.ok() || !result_.torn.empty()) && on_torn_) on_torn_();
  });
}

DeferredCopyResult DeferredCopier::wait() {
  if (!thread_.outstanding()) {
    DeferredCopyResult r;
    r.status = Error::msg("deferred copy: no job to wait for");
    return r;
  }
  thread_.wait();
  return std::move(result_);
}

}  // namespace slsdbg::recorder
