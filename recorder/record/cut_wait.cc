#include "recorder/record/cut_wait.h"

#include <cerrno>

#include "process/signal_policy.h"

namespace slsdbg::recorder {

using process::EintrWait;

void CutWait::on_entry(long nr, std::array<uint64_t, 6>& args, uint64_t now_ns) {
  if (active_ && nr == nr_) {
    args[3] = timeout_arg_;
    return;
  }
  active_ = false;
  if (process::eintr_wait_kind(nr, args) != EintrWait::None) started_ns_ = now_ns;
}

bool CutWait::cut_at_exit(long nr, const std::array<uint64_t, 6>& args, int64_t result) {
  if (result != -EINTR) {
    active_ = false;
    return false;
  }
  if (active_ && nr == nr_) return true;  // cut again: the same deadline
  const EintrWait kind = process::eintr_wait_kind(nr, args);
  // A timeout behind a pointer is left as it is (EINTR): shortening it
  // would mean writing the program's memory.
  if (kind != EintrWait::Forever && kind != EintrWait::MillisArg3) return false;
  active_ = true;
  nr_ = nr;
  timeout_arg_ = args[3];
  deadline_ns_ = -1;
  if (kind == EintrWait::MillisArg3)
    deadline_ns_ = static_cast<int64_t>(started_ns_) + static_cast<int64_t>(static_cast<int>(args[3])) * 1'000'000;
  return true;
}

bool CutWait::put_back(long nr, user_regs_struct& r) const {
  if (!active_ || nr != nr_ || r.r10 == timeout_arg_) return false;
  r.r10 = timeout_arg_;
  return true;
}

bool CutWait::shorten(user_regs_struct& r, uint64_t now_ns) const {
  if (!active_ || deadline_ns_ < 0 || static_cast<long>(r.rax) != nr_) return false;
  const int64_t left = deadline_ns_ - static_cast<int64_t>(now_ns);
  const uint64_t ms = left <= 0 ? 0 : static_cast<uint64_t>((left + 999'999) / 1'000'000);
  // Only the int's 32 bits are the timeout; the register's upper half stays.
  const uint64_t shortened = (timeout_arg_ & ~0xffffffffull) | (ms & 0xffffffffull);
  if (r.r10 == shortened) return false;
  r.r10 = shortened;
  return true;
}

}  // namespace slsdbg::recorder
