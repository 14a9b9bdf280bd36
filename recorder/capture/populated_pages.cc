#include "recorder/capture/populated_pages.h"

#include <unistd.h>

#include <algorithm>

namespace slsdbg::recorder {

namespace {
constexpr uint64_t kPresent = 1ull << 63, kSwapped = 1ull << 62;

Status append_pages_with(int pagemap_fd, const PageRange& range, uint64_t bits, std::vector<uint64_t>& out) {
  constexpr size_t kEntries = 4096;
  uint64_t entries[kEntries];
  for (uint64_t page = range.start; page < range.end;) {
    size_t n = std::min<uint64_t>(kEntries, (range.end - page) / kPageSize);
    ssize_t got = pread(pagemap_fd, entries, n * sizeof(uint64_t), static_cast<off_t>(page / kPageSize * sizeof(uint64_t)));
    if (got < 0) return Error::from_errno("pread(/proc/PID/pagemap)");
    size_t read_entries = static_cast<size_t>(got) / sizeof(uint64_t);
    if (read_entries == 0) break;
    for (size_t i = 0; i < read_entries; ++i)
      if (entries[i] & bits) out.push_back(page + i * kPageSize);
    page += read_entries * kPageSize;
  }
  return ok_status();
}

}  // namespace

Status append_populated_pages(int pagemap_fd, const PageRange& range, std::vector<uint64_t>& out) {
  return append_pages_with(pagemap_fd, range, kPresent | kSwapped, out);
}

Status append_present_pages(int pagemap_fd, const PageRange& range, std::vector<uint64_t>& out) {
  return append_pages_with(pagemap_fd, range, kPresent, out);
}

}  // namespace slsdbg::recorder
