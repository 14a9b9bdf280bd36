// Dirty tracking with userfaultfd async write-protect + PAGEMAP_SCAN
// (DESIGN.md, Kernel mechanisms). Cross-process recipe: the tracee creates
// the userfaultfd (injected syscall, it binds to the creator's mm), we take a
// copy with pidfd_getfd and drive UFFDIO_* ourselves, then the tracee closes
// its copy. PAGEMAP_SCAN on /proc/PID/pagemap returns the written pages and
// write-protects them again in one ioctl. Ranges the uffd refuses (e.g. some
// special mappings) fall back to page hashes.
#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <map>

#include "common/fd.h"
#include "process/inject.h"
#include "process/remote_fd.h"
#include "recorder/capture/dirty_tracker.h"
#include "recorder/capture/pagemap_scan.h"
#include "recorder/capture/split_scan.h"
#include "recorder/capture/uffd_compat.h"

namespace slsdbg::recorder {

namespace {

class UffdWpTracker final : public DirtyTracker {
 public:
  UffdWpTracker(pid_t pid, UniqueFd uffd, UniqueFd pagemap)
      : pid_(pid), uffd_(std::move(uffd)), pagemap_(std::move(pagemap)), fallback_(make_page_hash_tracker(pid)) {}
  const char* name() const override { return "uffd-wp-async"; }

  Status track(const PageRange& r) override {
    uffdio_register reg{};
    reg.range.start = r.start;
    reg.range.len = r.end - r.start;
    reg.mode = UFFDIO_REGISTER_MODE_WP;
    if (ioctl(uffd_.get(), UFFDIO_REGISTER, &reg) != 0) {
      // EINVAL: a VMA userfaultfd cannot handle (VM_IO/PFNMAP, some special mappings).
      // EPERM: no VM_MAYWRITE (MAP_SHARED of a file opened read-only). The
      // tracee cannot write it through the mapping, but the file can still
      // change under it (write(2), other processes), so hash it.
      if (errno != EINVAL && errno != EPERM) return Error::from_errno("ioctl(UFFDIO_REGISTER)");
      hashed_[r.start] = r.end;
      return fallback_->track(r);
    }
    uffdio_writeprotect wp{};
    wp.range = reg.range;
    wp.mode = UFFDIO_WRITEPROTECT_MODE_WP;
    if (ioctl(uffd_.get(), UFFDIO_WRITEPROTECT, &wp) != 0) return Error::from_errno("ioctl(UFFDIO_WRITEPROTECT)");
    add(registered_, r);
    return ok_status();
  }

  void untrack(const PageRange& r) override {
    remove(registered_, r);  // the kernel dropped the registration with the VMA
    bool hashed = false;
    for (auto& [s, e] : hashed_) hashed |= s < r.end && r.start < e;
    if (hashed) {
      remove(hashed_, r);
      fallback_->untrack(r);
    }
  }

  Result<std::vector<uint64_t>> collect(std::vector<PageRange>& lost) override {
    std::vector<PageRange> ranges;
    for (auto& [start, end] : registered_) ranges.push_back({start, end});
    SplitScanResult scanned = TRY(scanner_.scan(pagemap_.get(), ranges));
    std::vector<uint64_t> dirty = std::move(scanned.written);
    std::vector<PageRange> unregistered;
    std::sort(scanned.unregistered.begin(), scanned.unregistered.end());
    scanned.unregistered.erase(std::unique(scanned.unregistered.begin(), scanned.unregistered.end()),
                               scanned.unregistered.end());
    for (size_t i : scanned.unregistered) unregistered.push_back(ranges[i]);
    for (const PageRange& r : unregistered) {
      remove(registered_, r);
      lost.push_back(r);
    }
    std::sort(dirty.begin(), dirty.end());
    dirty.erase(std::unique(dirty.begin(), dirty.end()), dirty.end());
    if (!hashed_.empty()) {
      std::vector<PageRange> ignored;
      auto more = TRY(fallback_->collect(ignored));
      dirty.insert(dirty.end(), more.begin(), more.end());
      std::sort(dirty.begin(), dirty.end());
    }
    return dirty;
  }

  bool watches(uint64_t page) const override { return contains(registered_, page) && !contains(hashed_, page); }

 private:
  static bool contains(const std::map<uint64_t, uint64_t>& m, uint64_t page) {
    auto it = m.upper_bound(page);
    if (it == m.begin()) return false;
    --it;
    return page < it->second;
  }
  // Sorted disjoint ranges, merged when adjacent.
  static void add(std::map<uint64_t, uint64_t>& m, PageRange r) {
    remove(m, r);
    auto next = m.lower_bound(r.start);
    if (next != m.begin()) {
      auto prev = std::prev(next);
      if (prev->second == r.start) {
        r.start = prev->first;
        m.erase(prev);
      }
    }
    next = m.find(r.end);
    if (next != m.end()) {
      r.end = next->second;
      m.erase(next);
    }
    m[r.start] = r.end;
  }
  static void remove(std::map<uint64_t, uint64_t>& m, PageRange r) {
    std::vector<std::pair<uint64_t, uint64_t>> keep;
    for (auto it = m.begin(); it != m.end();) {
      if (it->second <= r.start || it->first >= r.end) {
        ++it;
        continue;
      }
      if (it->first < r.start) keep.push_back({it->first, r.start});
      if (it->second > r.end) keep.push_back({r.end, it->second});
      it = m.erase(it);
    }
    for (auto& k : keep) m[k.first] = k.second;
  }

  pid_t pid_;
  UniqueFd uffd_, pagemap_;
  std::map<uint64_t, uint64_t> registered_;  // start -> end
  std::map<uint64_t, uint64_t> hashed_;
  std::unique_ptr<DirtyTracker> fallback_;
  SplitScanner scanner_;
};

}  // namespace

Result<std::unique_ptr<DirtyTracker>> make_uffd_wp_tracker(process::Task& leader) {
  const pid_t pid = leader.tgid();
  TRY(process::install_injection_page(leader));
  int64_t remote_fd = TRY(process::inject_syscall(leader, SYS_userfaultfd, {O_CLOEXEC | O_NONBLOCK | UFFD_USER_MODE_ONLY, 0, 0, 0, 0, 0}));
  if (remote_fd < 0) return Error::from_errno("userfaultfd() in the tracee", static_cast<int>(-remote_fd));
  Result<UniqueFd> copied = process::copy_remote_fd(pid, static_cast<int>(remote_fd));
  // The tracee's copy goes either way; ours keeps the context alive.
  TRY(process::inject_syscall(leader, SYS_close, {static_cast<uint64_t>(remote_fd), 0, 0, 0, 0, 0}));
  UniqueFd uffd = TRY(std::move(copied));
  uffdio_api api{};
  api.api = UFFD_API;
  api.features = UFFD_FEATURE_WP_ASYNC | UFFD_FEATURE_WP_UNPOPULATED;
  if (ioctl(uffd.get(), UFFDIO_API, &api) != 0) return Error::from_errno("ioctl(UFFDIO_API, WP_ASYNC|WP_UNPOPULATED)");
  std::string path = "/proc/" + std::to_string(pid) + "/pagemap";
  UniqueFd pagemap(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!pagemap.valid()) return Error::from_errno("open(" + path + ")");
  // Probe PAGEMAP_SCAN itself (absent before Linux 6.7).
  page_region probe[1];
  pm_scan_arg a{};
  a.size = sizeof a;
  a.start = 0;
  a.end = kPageSize;
  a.vec = reinterpret_cast<uint64_t>(probe);
  a.vec_len = 1;
  a.category_mask = PAGE_IS_WRITTEN;
  a.return_mask = PAGE_IS_WRITTEN;
  if (ioctl(pagemap.get(), PAGEMAP_SCAN, &a) < 0) return Error::from_errno("ioctl(PAGEMAP_SCAN)");
  return std::unique_ptr<DirtyTracker>(std::make_unique<UffdWpTracker>(pid, std::move(uffd), std::move(pagemap)));
}

}  // namespace slsdbg::recorder
