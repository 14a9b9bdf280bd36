#include "recorder/capture/page_buffer_pool.h"

#include <sys/mman.h>

#include <algorithm>

namespace slsdbg::recorder {

namespace {
// Kept for reuse: enough for the checkpoints in flight at once (the store's
// queue, the one being copied, the one being captured); buffers larger than
// kMaxPooledPages (checkpoint 0 of a big heap) go back to the kernel.
constexpr size_t kMaxFree = 8;
constexpr size_t kMaxPooledPages = 16384;  // 64 MiB
constexpr size_t kMinPages = 256;          // small captures share one size class
}  // namespace

PageBuffer::PageBuffer(size_t pages) : pages_(pages) {
  if (pages == 0) return;
  void* m = mmap(nullptr, pages * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED) {
    pages_ = 0;
    return;
  }
  data_ = static_cast<uint8_t*>(m);
}

PageBuffer::~PageBuffer() {
  if (data_) munmap(data_, pages_ * 4096);
}

std::shared_ptr<PageBuffer> PageBufferPool::acquire(size_t pages) {
  pages = std::max(pages, kMinPages);
  std::unique_ptr<PageBuffer> b;
  {
    std::lock_guard<std::mutex> lock(mu_);
    // The smallest free buffer that fits.
    auto best = free_.end();
    for (auto it = free_.begin(); it != free_.end(); ++it)
      if ((*it)->capacity_pages() >= pages && (best == free_.end() || (*it)->capacity_pages() < (*best)->capacity_pages()))
        best = it;
    if (best != free_.end()) {
      b = std::move(*best);
      free_.erase(best);
    }
  }
  if (!b) {
    // Round up so that sizes that vary a little from one checkpoint to the next reuse each other.
    b = std::make_unique<PageBuffer>(pages + pages / 4);
    if (!b->valid()) return nullptr;
  }
  std::shared_ptr<PageBufferPool> self = shared_from_this();
  return std::shared_ptr<PageBuffer>(b.release(), [self](PageBuffer* p) { self->give_back(p); });
}

void PageBufferPool::give_back(PageBuffer* b) {
  std::unique_ptr<PageBuffer> owned(b);
  if (owned->capacity_pages() > kMaxPooledPages) return;
  std::lock_guard<std::mutex> lock(mu_);
  if (free_.size() < kMaxFree) {
    free_.push_back(std::move(owned));
    return;
  }
  // Full: keep the larger buffer. The small ones of a program's first
  // checkpoints otherwise fill the list for good, every larger capture
  // misses, and its fresh buffer faults in each page inside the stop
  // (zstd -T1: 44 of 45 captures, ~10% of the recording's CPU).
  auto smallest = std::min_element(free_.begin(), free_.end(), [](const auto& x, const auto& y) {
    return x->capacity_pages() < y->capacity_pages();
  });
  if ((*smallest)->capacity_pages() < owned->capacity_pages()) std::swap(*smallest, owned);
  // `owned` (the smaller one) is unmapped on return.
}

}  // namespace slsdbg::recorder
