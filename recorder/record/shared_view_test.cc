// SharedView on a real child process that shares a page with this test:
// what the test writes after the child's snapshot comes back as one write
// of exactly the changed bytes, its page goes into the next checkpoint, and
// a checkpoint amended from the copy gets the bytes as of the snapshot.
#include "recorder/record/shared_view.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>

namespace slsdbg::recorder {
namespace {

class SharedViewTest : public ::testing::Test {
 protected:
  void SetUp() override {
    page_ = static_cast<uint8_t*>(mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0));
    ASSERT_NE(page_, MAP_FAILED);
    std::memset(page_, 7, 4096);
    child_ = fork();
    ASSERT_GE(child_, 0);
    if (child_ == 0) {
      pause();
      _exit(0);
    }
  }
  void TearDown() override {
    kill(child_, SIGKILL);
    waitpid(child_, nullptr, 0);
    munmap(page_, 4096);
  }
  uint64_t addr() const { return reinterpret_cast<uint64_t>(page_); }
  uint8_t* page_ = nullptr;
  pid_t child_ = -1;
};

TEST_F(SharedViewTest, AnotherProcessWriteComesBackAsOneWrite) {
  SharedView v(child_);
  ASSERT_TRUE(v.refresh(false).ok());
  ASSERT_FALSE(v.empty());
  ASSERT_TRUE(v.snapshot().ok());
  page_[100] = 1;
  page_[103] = 2;
  auto w = v.changes();
  ASSERT_TRUE(w.ok());
  ASSERT_EQ(w->size(), 1u);
  EXPECT_EQ((*w)[0].addr, addr() + 100);
  EXPECT_EQ((*w)[0].bytes, (std::vector<uint8_t>{1, 7, 7, 2}));
  // The copy is stale after changes(): nothing more until the next snapshot.
  page_[5] = 9;
  EXPECT_TRUE(v.changes()->empty());
}

TEST_F(SharedViewTest, ACheckpointWithoutTheTurnHoldsTheCopy) {
  SharedView v(child_);
  ASSERT_TRUE(v.refresh(false).ok());
  ASSERT_TRUE(v.snapshot().ok());
  page_[0] = 42;  // another member runs meanwhile
  CapturedCheckpoint c;
  ASSERT_TRUE(v.amend(c, /*from_copy=*/true).ok());
  ASSERT_EQ(c.input.dirty.size(), 1u);  // a new range goes whole into the first checkpoint
  EXPECT_EQ(c.input.dirty[0].vaddr, addr());
  EXPECT_EQ(c.input.dirty[0].data[0], 7);
  CapturedCheckpoint next;
  ASSERT_TRUE(v.amend(next, false).ok());
  EXPECT_TRUE(next.input.dirty.empty());
}

}  // namespace
}  // namespace slsdbg::recorder
