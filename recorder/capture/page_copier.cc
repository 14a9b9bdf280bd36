#include "recorder/capture/page_copier.h"

#include <sys/uio.h>

namespace slsdbg::recorder {

namespace {
constexpr size_t kMaxIov = 1024;  // UIO_MAXIOV
}

Status PageCopier::copy(process::Task& task, std::vector<uint64_t>& pages) {
  if (buf_.size() < pages.size() * kPageSize) buf_.resize(pages.size() * kPageSize);
  std::vector<bool> failed;  // allocated only if something fails
  std::vector<iovec> remote;
  remote.reserve(kMaxIov);
  size_t i = 0;
  while (i < pages.size()) {
    // One batch: up to kMaxIov runs of adjacent pages, all landing contiguously in buf_.
    remote.clear();
    size_t first = i;
    while (i < pages.size() && remote.size() < kMaxIov) {
      size_t run = 1;
      while (i + run < pages.size() && pages[i + run] == pages[i] + run * kPageSize) ++run;
      remote.push_back(iovec{reinterpret_cast<void*>(pages[i]), run * kPageSize});
      i += run;
    }
    size_t want = (i - first) * kPageSize;
    iovec local{buf_.data() + first * kPageSize, want};
    ssize_t got = process_vm_readv(task.raw_tid(), &local, 1, remote.data(), remote.size(), 0);
    size_t done = got > 0 ? static_cast<size_t>(got) : 0;
    // A short read stops at the first unreadable page: take the rest one page at a time.
    for (size_t p = first + done / kPageSize; p < i; ++p) {
      std::span<uint8_t> out(buf_.data() + p * kPageSize, kPageSize);
      iovec l1{out.data(), kPageSize};
      iovec r1{reinterpret_cast<void*>(pages[p]), kPageSize};
      if (process_vm_readv(task.raw_tid(), &l1, 1, &r1, 1, 0) == static_cast<ssize_t>(kPageSize)) continue;
      if (task.read_memory(RemoteAddr(pages[p]), out).ok()) continue;
      if (failed.empty()) failed.resize(pages.size(), false);
      failed[p] = true;
    }
  }
  if (!failed.empty()) {
    size_t out = 0;
    for (size_t p = 0; p < pages.size(); ++p) {
      if (failed[p]) continue;
      if (out != p) {
        pages[out] = pages[p];
        std::copy_n(buf_.data() + p * kPageSize, kPageSize, buf_.data() + out * kPageSize);
      }
      ++out;
    }
    pages.resize(out);
  }
  return ok_status();
}

}  // namespace slsdbg::recorder
