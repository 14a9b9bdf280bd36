// Fallback dirty tracking: remember a 64-bit hash (XXH3) of every tracked
// page; a page whose hash changed was written. Costs a full read of tracked
// memory per checkpoint, so it is only for kernels without uffd-wp-async.
#include <sys/uio.h>
#include <xxhash.h>

#include <algorithm>
#include <map>

#include "recorder/capture/dirty_tracker.h"

namespace slsdbg::recorder {

namespace {

class PageHashTracker final : public DirtyTracker {
 public:
  explicit PageHashTracker(pid_t pid) : pid_(pid) {}
  const char* name() const override { return "page-hash"; }
  bool watches(uint64_t) const override { return false; }  // hashes say nothing until the next collect

  Status track(const PageRange& range) override {
    std::vector<uint64_t>& hashes = ranges_[range.start];
    hashes.clear();
    end_[range.start] = range.end;
    hash_range(range, hashes, nullptr);
    return ok_status();
  }

  void untrack(const PageRange& range) override {
    // Drop every tracked range overlapping `range`, re-tracking the parts outside it.
    std::vector<PageRange> keep;
    for (auto it = ranges_.begin(); it != ranges_.end();) {
      uint64_t s = it->first, e = end_[s];
      if (e <= range.start || s >= range.end) {
        ++it;
        continue;
      }
      std::vector<uint64_t> old = std::move(it->second);
      it = ranges_.erase(it);
      end_.erase(s);
      auto split = [&](uint64_t a, uint64_t b) {
        if (a >= b) return;
        auto& h = ranges_[a];
        end_[a] = b;
        h.assign(old.begin() + (a - s) / kPageSize, old.begin() + (b - s) / kPageSize);
      };
      split(s, std::min(e, range.start));
      split(std::max(s, range.end), e);
    }
  }

  Result<std::vector<uint64_t>> collect(std::vector<PageRange>&) override {
    std::vector<uint64_t> dirty;
    for (auto& [start, hashes] : ranges_) hash_range(PageRange{start, end_[start]}, hashes, &dirty);
    return dirty;
  }

 private:
  // Hashes the range in 1 MiB chunks. With `dirty`, compares with `hashes`
  // and reports changed pages; otherwise fills `hashes`. Unreadable pages
  // hash as 0 (they cannot be captured either).
  void hash_range(const PageRange& r, std::vector<uint64_t>& hashes, std::vector<uint64_t>* dirty) {
    const size_t pages = (r.end - r.start) / kPageSize;
    hashes.resize(pages, 0);
    constexpr size_t kChunk = 256;
    // No bigger than the range: the uffd tracker hashes only the 2-page
    // [vdso], and zeroing 1 MiB for it cost every recording ~0.3 ms.
    buf_.resize(std::max(buf_.size(), std::min(kChunk, pages) * kPageSize));
    for (size_t first = 0; first < pages; first += kChunk) {
      size_t n = std::min(kChunk, pages - first);
      iovec local{buf_.data(), n * kPageSize};
      iovec remote{reinterpret_cast<void*>(r.start + first * kPageSize), n * kPageSize};
      ssize_t got = process_vm_readv(pid_, &local, 1, &remote, 1, 0);
      size_t readable = got > 0 ? static_cast<size_t>(got) / kPageSize : 0;
      for (size_t i = 0; i < n; ++i) {
        uint64_t h = 0;
        if (i < readable) {
          h = XXH3_64bits(buf_.data() + i * kPageSize, kPageSize) | 1;  // |1: never the "unreadable" value
        } else if (got < 0 || i >= readable) {
          // A hole after a short read: retry page by page.
          iovec l1{buf_.data() + i * kPageSize, kPageSize};
          iovec r1{reinterpret_cast<void*>(r.start + (first + i) * kPageSize), kPageSize};
          if (process_vm_readv(pid_, &l1, 1, &r1, 1, 0) == static_cast<ssize_t>(kPageSize))
            h = XXH3_64bits(buf_.data() + i * kPageSize, kPageSize) | 1;
        }
        if (dirty && h != hashes[first + i]) dirty->push_back(r.start + (first + i) * kPageSize);
        hashes[first + i] = h;
      }
    }
  }

  pid_t pid_;
  std::map<uint64_t, std::vector<uint64_t>> ranges_;  // start -> per-page hash
  std::map<uint64_t, uint64_t> end_;                  // start -> end
  std::vector<uint8_t> buf_;
};

}  // namespace

std::unique_ptr<DirtyTracker> make_page_hash_tracker(pid_t pid) { return std::make_unique<PageHashTracker>(pid); }

}  // namespace slsdbg::recorder
