#include "recorder/capture/deferred_copy.h"

#include <unistd.h>

#include <system_error>

#include "recorder/capture/helper_cpu.h"
#include "recorder/capture/page_copier.h"
#include "recorder/capture/pagemap_scan.h"
#include "recorder/process/task.h"

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

DeferredCopier::~DeferredCopier() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    quit_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

Status DeferredCopier::start(DeferredCopyJob job) {
  if (outstanding_) return Error::msg("deferred copy: the previous job was not waited for");
  if (!thread_.joinable()) {
    try {
      thread_ = std::thread([this] { thread_main(); });
    } catch (const std::system_error& e) {
      return Error{std::string("starting the deferred copy thread: ") + e.what(), e.code().value()};
    }
    move_off_current_cpu(thread_);
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    job_ = std::move(job);
  }
  outstanding_ = true;
  cv_.notify_all();
  return ok_status();
}

DeferredCopyResult DeferredCopier::wait() {
  if (!outstanding_) {
    DeferredCopyResult r;
    r.status = Error::msg("deferred copy: no job to wait for");
    return r;
  }
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [&] { return result_.has_value(); });
  DeferredCopyResult r = std::move(*result_);
  result_.reset();
  outstanding_ = false;
  return r;
}

void DeferredCopier::thread_main() {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    cv_.wait(lock, [&] { return job_.has_value() || quit_; });
    if (!job_) return;
    DeferredCopyJob job = std::move(*job_);
    job_.reset();
    lock.unlock();
    if (delay_us_) usleep(delay_us_);
    DeferredCopyResult r = run_job(job);
    const bool torn = !r.status.ok() || !r.torn.empty();
    lock.lock();
    result_ = std::move(r);
    cv_.notify_all();
    if (torn && on_torn_) {
      lock.unlock();
      on_torn_();
      lock.lock();
    }
  }
}

}  // namespace slsdbg::recorder
