// Page buffers a checkpoint's copied pages live in until the store has
// written them. Several checkpoints are in flight at once (one being copied
// in the background, some queued for the store), so each capture takes its
// own buffer. Freed buffers are kept for reuse: a fresh buffer costs a page
// fault per page on first write, which would land inside the tracee's stop.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

namespace slsdbg::recorder {

class PageBuffer {
 public:
  explicit PageBuffer(size_t pages);
  ~PageBuffer();
  PageBuffer(const PageBuffer&) = delete;
  PageBuffer& operator=(const PageBuffer&) = delete;

  uint8_t* page(size_t i) { return data_ + i * 4096; }
  const uint8_t* page(size_t i) const { return data_ + i * 4096; }
  size_t capacity_pages() const { return pages_; }
  bool valid() const { return data_ != nullptr; }

 private:
  uint8_t* data_ = nullptr;
  size_t pages_ = 0;
};

class PageBufferPool : public std::enable_shared_from_this<PageBufferPool> {
 public:
  static std::shared_ptr<PageBufferPool> create() { return std::shared_ptr<PageBufferPool>(new PageBufferPool()); }

  // A buffer of at least `pages` pages (nullptr when memory is exhausted). It
  // returns here when the last owner lets go, from any thread.
  std::shared_ptr<PageBuffer> acquire(size_t pages);

 private:
  PageBufferPool() = default;
  void give_back(PageBuffer* b);

  std::mutex mu_;
  std::vector<std::unique_ptr<PageBuffer>> free_;
};

}  // namespace slsdbg::recorder
