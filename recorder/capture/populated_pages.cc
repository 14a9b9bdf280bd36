#include "recorder/capture/populated_pages.h"

#include <unistd.h>

#include <algorithm>

namespace slsdbg::recorder {

namespace {
constexpr uint64_t kPresent = 1ull << 63, kSwapped = 1ull << 62, kFilePage = 1ull << 61;
// A swapped entry's bits 0-4 are its swap type; the last type is the kernel's
// pte marker (SWP_PTE_MARKER, since 5.19), not memory.
constexpr uint64_t kSwapTypeMask = 0x1f, kPteMarkerType = 0x1f;

template <typename Keep>
Status append_pages_where(int pagemap_fd, const PageRange& range, Keep keep, std::vector<uint64_t>& out) {
  constexpr size_t kEntries = 4096;
  uint64_t entries[kEntries];
  for (uint64_t page = range.start; page < range.end;) {
    size_t n = std::min<uint64_t>(kEntries, (range.end - page) / kPageSize);
    ssize_t got = pread(pagemap_fd, entries, n * sizeof(uint64_t), static_cast<off_t>(page / kPageSize * sizeof(uint64_t)));
    if (got < 0) return Error::from_errno("pread(/proc/PID/pagemap)");
    size_t read_entries = static_cast<size_t>(got) / sizeof(uint64_t);
    if (read_entries == 0) break;
    for (size_t i = 0; i < read_entries; ++i)
      if (keep(entries[i])) out.push_back(page + i * kPageSize);
    page += read_entries * kPageSize;
  }
  return ok_status();
}

Status append_pages_with(int pagemap_fd, const PageRange& range, uint64_t bits, std::vector<uint64_t>& out) {
  return append_pages_where(pagemap_fd, range, [bits](uint64_t e) { return (e & bits) != 0; }, out);
}

}  // namespace

Status append_populated_pages(int pagemap_fd, const PageRange& range, std::vector<uint64_t>& out) {
  return append_pages_with(pagemap_fd, range, kPresent | kSwapped, out);
}

Status append_private_copies(int pagemap_fd, const PageRange& range, std::vector<uint64_t>& out) {
  // A present page of a private file mapping is the file's page until the
  // process writes it; then it is an anonymous copy (bit 61 clear). A swap
  // entry may be a swapped-out copy, but not when it is a marker our
  // write-protection left on an untouched page (a range whose registration
  // the kernel dropped keeps them). The type shows only to CAP_SYS_ADMIN;
  // others read 0 and copy the page (more than needed, never less).
  return append_pages_where(pagemap_fd, range, [](uint64_t e) {
    if (e & kSwapped) return (e & kSwapTypeMask) != kPteMarkerType;
    return (e & kPresent) && !(e & kFilePage);
  }, out);
}

Status append_present_pages(int pagemap_fd, const PageRange& range, std::vector<uint64_t>& out) {
  return append_pages_with(pagemap_fd, range, kPresent, out);
}

}  // namespace slsdbg::recorder
