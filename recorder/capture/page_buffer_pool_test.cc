#include "recorder/capture/page_buffer_pool.h"

#include <gtest/gtest.h>

#include <vector>

namespace slsdbg::recorder {
namespace {

// A buffer that comes back from the pool still holds what was written into
// it; a fresh mapping reads zero (and faults in every page again).
constexpr uint8_t kMark = 0xab;

// A program's first checkpoints are small, later ones large (zstd: 6 pages,
// then 6,000 a tick). Once the small buffers fill the free list, a large
// buffer handed back must still be kept, or every large capture maps and
// faults in a fresh one.
TEST(PageBufferPool, KeepsALargeBufferWhenSmallOnesFillTheFreeList) {
  auto pool = PageBufferPool::create();
  {
    std::vector<std::shared_ptr<PageBuffer>> small;
    for (int i = 0; i < 16; i++) small.push_back(pool->acquire(1));
  }  // all handed back: the free list is full of small buffers
  {
    std::shared_ptr<PageBuffer> big = pool->acquire(4000);
    ASSERT_TRUE(big && big->valid());
    big->page(3999)[0] = kMark;
  }
  std::shared_ptr<PageBuffer> again = pool->acquire(4000);
  ASSERT_TRUE(again && again->valid());
  EXPECT_EQ(again->page(3999)[0], kMark) << "the large buffer was dropped, a fresh one mapped";
  // The small sizes are still served from the pool.
  std::shared_ptr<PageBuffer> small = pool->acquire(1);
  ASSERT_TRUE(small && small->valid());
  EXPECT_LT(small->capacity_pages(), 4000u);
}

TEST(PageBufferPool, ServesTheSmallestFreeBufferThatFits) {
  auto pool = PageBufferPool::create();
  {
    auto a = pool->acquire(1000);
    auto b = pool->acquire(3000);
    a->page(0)[0] = 1;
    b->page(0)[0] = 3;
  }
  auto c = pool->acquire(900);
  EXPECT_EQ(c->page(0)[0], 1);
  auto d = pool->acquire(2000);
  EXPECT_EQ(d->page(0)[0], 3);
}

}  // namespace
}  // namespace slsdbg::recorder
