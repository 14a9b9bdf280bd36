#include "recorder/capture/page_copier.h"

#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>

namespace slsdbg::recorder {

namespace {
constexpr size_t kMaxIov = 1024;            // UIO_MAXIOV
constexpr size_t kSplitThreshold = 256;     // below this, waking a thread costs more than it saves
}  // namespace

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

Status PageCopier::copy(process::Task& task, std::vector<uint64_t>& pages, uint8_t* dest) {
  std::vector<size_t> failed;
  const size_t half = pages.size() / 2;
  std::vector<size_t> their_failed;
  const pid_t tid = task.raw_tid();
  const bool split = threads_ == CopyThreads::Two && pages.size() >= kSplitThreshold &&
                     helper_.start([&] { copy_span(tid, pages, half, pages.size(), dest, their_failed); }).ok();
  copy_span(tid, pages, 0, split ? half : pages.size(), dest, failed);
  helper_.wait();
  failed.insert(failed.end(), their_failed.begin(), their_failed.end());
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
