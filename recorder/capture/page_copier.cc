#include "recorder/capture/page_copier.h"

#include <sched.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>

namespace slsdbg::recorder {

namespace {
constexpr size_t kMaxIov = 1024;            // UIO_MAXIOV
constexpr size_t kSplitThreshold = 256;     // below this, waking a thread costs more than it saves
}  // namespace

PageCopier::~PageCopier() {
  if (worker_.joinable()) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      quit_ = true;
    }
    cv_.notify_all();
    worker_.join();
  }
}

void PageCopier::copy_span(pid_t tid, const std::vector<uint64_t>& pages, size_t first, size_t last, uint8_t* dest,
                           std::vector<size_t>& failed) {
  iovec remote[kMaxIov];
  size_t i = first;
  while (i < last) {
    size_t batch_first = i, n = 0;
    while (i < last && n < kMaxIov) {
      size_t run = 1;
      while (i + run < last && pages[i + run] == pages[i] + run * kPageSize) ++run;
      remote[n++] = iovec{reinterpret_cast<void*>(pages[i]), run * kPageSize};
      i += run;
    }
    iovec local{dest + batch_first * kPageSize, (i - batch_first) * kPageSize};
    ssize_t got = process_vm_readv(tid, &local, 1, remote, n, 0);
    size_t done = got > 0 ? static_cast<size_t>(got) / kPageSize : 0;
    // A short read stops at the first unreadable page: take the rest one page at a time.
    for (size_t p = batch_first + done; p < i; ++p) {
      iovec l1{dest + p * kPageSize, kPageSize};
      iovec r1{reinterpret_cast<void*>(pages[p]), kPageSize};
      if (process_vm_readv(tid, &l1, 1, &r1, 1, 0) != static_cast<ssize_t>(kPageSize)) failed.push_back(p);
    }
  }
}

void PageCopier::worker_loop() {
  // Any CPU: the point is to run beside the recorder's (pinned) thread.
  cpu_set_t all;
  CPU_ZERO(&all);
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  for (long c = 0; c < n && c < CPU_SETSIZE; ++c) CPU_SET(c, &all);
  sched_setaffinity(0, sizeof all, &all);
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    cv_.wait(lock, [&] { return job_ready_ || quit_; });
    if (quit_) return;
    job_ready_ = false;
    lock.unlock();
    std::vector<size_t> failed;
    copy_span(job_tid_, *job_pages_, job_first_, job_last_, job_dest_, failed);
    lock.lock();
    job_failed_ = std::move(failed);
    job_done_ = true;
    cv_.notify_all();
  }
}

Status PageCopier::copy(process::Task& task, std::vector<uint64_t>& pages, uint8_t* dest) {
  std::vector<size_t> failed;
  const bool split = threads_ == CopyThreads::Two && pages.size() >= kSplitThreshold;
  if (split) {
    if (!worker_.joinable()) worker_ = std::thread([this] { worker_loop(); });
    size_t half = pages.size() / 2;
    {
      std::lock_guard<std::mutex> lock(mu_);
      job_tid_ = task.raw_tid();
      job_pages_ = &pages;
      job_dest_ = dest;
      job_first_ = half;
      job_last_ = pages.size();
      job_done_ = false;
      job_ready_ = true;
    }
    cv_.notify_all();
    copy_span(task.raw_tid(), pages, 0, half, dest, failed);
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return job_done_; });
    failed.insert(failed.end(), job_failed_.begin(), job_failed_.end());
  } else {
    copy_span(task.raw_tid(), pages, 0, pages.size(), dest, failed);
  }
  if (failed.empty()) return ok_status();
  // Last resort for what process_vm_readv cannot read: /proc/PID/mem (PROT_NONE pages).
  std::sort(failed.begin(), failed.end());
  std::vector<bool> drop(pages.size(), false);
  bool any_drop = false;
  for (size_t p : failed) {
    std::span<uint8_t> out(dest + p * kPageSize, kPageSize);
    if (!task.read_memory(RemoteAddr(pages[p]), out).ok()) drop[p] = any_drop = true;
  }
  if (any_drop) {
    size_t out = 0;
    for (size_t p = 0; p < pages.size(); ++p) {
      if (drop[p]) continue;
      if (out != p) {
        pages[out] = pages[p];
        std::copy_n(dest + p * kPageSize, kPageSize, dest + out * kPageSize);
      }
      ++out;
    }
    pages.resize(out);
  }
  return ok_status();
}

}  // namespace slsdbg::recorder
