// A wait our stop cut goes back in with the time it has left: an int of
// milliseconds in r10, or (sigtimedwait, epoll_pwait2) a struct timespec it
// points at, rewritten below the thread's red zone; the program's own
// timeout comes back at every stop of its call.
#include "recorder/record/cut_wait.h"

#include <gtest/gtest.h>
#include <sys/syscall.h>

#include <cerrno>
#include <cstring>

namespace slsdbg::recorder {
namespace {

// The thread's memory: a timespec at one address.
class OneTimespec final : public process::RemoteReader {
 public:
  OneTimespec(uint64_t addr, timespec ts) : addr_(addr), ts_(ts) {}
  Status read(uint64_t addr, void* out, uint64_t len) const override {
    if (addr != addr_ || len != sizeof ts_) return Error::msg("unmapped");
    std::memcpy(out, &ts_, sizeof ts_);
    return ok_status();
  }

 private:
  uint64_t addr_;
  timespec ts_;
};

constexpr uint64_t kMs = 1'000'000;

TEST(CutWait, PointedTimeoutGoesBackInWithTheTimeLeftBelowTheRedZone) {
  const uint64_t program_ts = 0x7000'1000;
  const OneTimespec mem(program_ts, timespec{0, 100 * static_cast<long>(kMs)});
  CutWait w;
  std::array<uint64_t, 6> args = {0x7000'2000, 0, program_ts, 8, 0, 0};
  w.on_entry(SYS_rt_sigtimedwait, args, 1'000 * kMs);
  ASSERT_TRUE(w.cut_at_exit(SYS_rt_sigtimedwait, args, -EINTR, mem));
  user_regs_struct r{};
  r.rax = SYS_rt_sigtimedwait;
  r.rdx = program_ts;
  r.rsp = 0x7fff'0000'0f08;
  std::optional<CutWait::PointedTimeout> write;
  ASSERT_TRUE(w.shorten(r, 1'030 * kMs, write));  // 30 ms in
  ASSERT_TRUE(write);
  EXPECT_EQ(write->ts.tv_sec, 0);
  EXPECT_EQ(write->ts.tv_nsec, 70 * static_cast<long>(kMs));
  EXPECT_EQ(r.rdx, write->addr);
  EXPECT_LE(write->addr + sizeof(timespec), r.rsp - 128);  // below the red zone
  EXPECT_EQ(write->addr % 16, 0u);
  // At the call's next entry the log sees the program's pointer; at any stop its register is back.
  std::array<uint64_t, 6> again = {0x7000'2000, 0, write->addr, 8, 0, 0};
  w.on_entry(SYS_rt_sigtimedwait, again, 1'031 * kMs);
  EXPECT_EQ(again[2], program_ts);
  EXPECT_TRUE(w.put_back(SYS_rt_sigtimedwait, r));
  EXPECT_EQ(r.rdx, program_ts);
  // Past the deadline: a zero timeout (it times out at once, as natively).
  ASSERT_TRUE(w.shorten(r, 2'000 * kMs, write));
  EXPECT_EQ(write->ts.tv_sec, 0);
  EXPECT_EQ(write->ts.tv_nsec, 0);
}

TEST(CutWait, EpollPwait2PointsThroughR10AndAnUnreadableTimeoutKeepsItsEintr) {
  const uint64_t program_ts = 0x7000'1000;
  const OneTimespec mem(program_ts, timespec{2, 0});
  CutWait w;
  std::array<uint64_t, 6> args = {5, 0x7000'3000, 1, program_ts, 0, 8};
  w.on_entry(SYS_epoll_pwait2, args, 0);
  ASSERT_TRUE(w.cut_at_exit(SYS_epoll_pwait2, args, -EINTR, mem));
  user_regs_struct r{};
  r.rax = SYS_epoll_pwait2;
  r.r10 = program_ts;
  r.rsp = 0x7fff'0000'1000;
  std::optional<CutWait::PointedTimeout> write;
  ASSERT_TRUE(w.shorten(r, 500 * kMs, write));
  ASSERT_TRUE(write);
  EXPECT_EQ(write->ts.tv_sec, 1);
  EXPECT_EQ(write->ts.tv_nsec, 500 * static_cast<long>(kMs));
  EXPECT_EQ(r.r10, write->addr);
  EXPECT_EQ(r.rdx, 0u);

  CutWait other;
  std::array<uint64_t, 6> bad = {5, 0x7000'3000, 1, 0x7000'9000, 0, 8};  // points at nothing readable
  other.on_entry(SYS_epoll_pwait2, bad, 0);
  EXPECT_FALSE(other.cut_at_exit(SYS_epoll_pwait2, bad, -EINTR, mem));
  EXPECT_FALSE(other.active());
}

TEST(CutWait, MillisecondsStayInR10) {
  const OneTimespec mem(0, timespec{});
  CutWait w;
  std::array<uint64_t, 6> args = {5, 0x7000'3000, 1, 100, 0, 0};
  w.on_entry(SYS_epoll_wait, args, 0);
  ASSERT_TRUE(w.cut_at_exit(SYS_epoll_wait, args, -EINTR, mem));
  user_regs_struct r{};
  r.rax = SYS_epoll_wait;
  r.r10 = 100;
  std::optional<CutWait::PointedTimeout> write;
  ASSERT_TRUE(w.shorten(r, 40 * kMs + 1, write));
  EXPECT_FALSE(write);
  EXPECT_EQ(r.r10, 60u);  // rounded up
}

}  // namespace
}  // namespace slsdbg::recorder
