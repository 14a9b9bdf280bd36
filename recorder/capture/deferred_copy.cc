#include "recorder/capture/deferred_copy.h"

#include <unistd.h>

#include "process/task.h"
#include "recorder/capture/page_copier.h"
#include "recorder/capture/pagemap_scan.h"

namespace slsdbg::recorder {

namespace {

DeferredCopyResult run_job(DeferredCopyJob& job) {
  DeferredCopyResult r;
  process::Task task(Tid(job.pid), job.pid);
  PageCopier copier;
  r.copied = job.pages;
  r.status = copier.copy(task, r.copied, job.dest);
  if (!r.status.ok()) return r;
  // Written since the checkpoint's scan, i.e. possibly before the copy above.
  Result<std::vector<uint64_t>> torn = written_among(job.pagemap_fd, r.copied);
  if (!torn.ok()) {
    r.status = torn.take_error();
    return r;
  }
  r.torn = std::move(*torn);
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
