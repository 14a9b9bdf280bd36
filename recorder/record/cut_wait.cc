#include "recorder/record/cut_wait.h"

#include <algorithm>
#include <cerrno>

#include "process/signal_policy.h"
#include "process/x86_insn.h"

namespace slsdbg::recorder {

using process::EintrWait;

void CutWait::on_entry(long nr, std::array<uint64_t, 6>& args, uint64_t now_ns) {
  if (active_ && nr == nr_) {
    args[arg_] = timeout_arg_;
    return;
  }
  active_ = false;
  if (process::eintr_wait_kind(nr, args) != EintrWait::None) started_ns_ = now_ns;
}

bool CutWait::cut_at_exit(long nr, const std::array<uint64_t, 6>& args, int64_t result,
                          const process::RemoteReader& mem) {
  if (result != -EINTR) {
    active_ = false;
    return false;
  }
  if (active_ && nr == nr_) return true;  // cut again: the same deadline
  const EintrWait kind = process::eintr_wait_kind(nr, args);
  if (kind == EintrWait::None) return false;
  const int arg = process::eintr_wait_timeout_arg(nr);
  int64_t deadline = -1;
  if (kind == EintrWait::MillisArg3) {
    deadline = static_cast<int64_t>(started_ns_) + static_cast<int64_t>(static_cast<int>(args[3])) * 1'000'000;
  } else if (kind == EintrWait::TimespecPtr) {
    timespec ts{};
    // Unreadable or invalid: the kernel's EINTR stands (it would have said EFAULT/EINVAL at entry).
    if (!mem.read(args[arg], &ts, sizeof ts).ok() || ts.tv_sec < 0 || ts.tv_nsec < 0 || ts.tv_nsec >= 1'000'000'000)
      return false;
    deadline = static_cast<int64_t>(started_ns_) + static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
  }
  active_ = true;
  nr_ = nr;
  arg_ = arg;
  pointed_ = kind == EintrWait::TimespecPtr;
  timeout_arg_ = args[arg];
  deadline_ns_ = deadline;
  return true;
}

bool CutWait::put_back(long nr, user_regs_struct& r) const {
  if (!active_ || nr != nr_ || timeout_register(r) == timeout_arg_) return false;
  timeout_register(r) = timeout_arg_;
  return true;
}

bool CutWait::shorten(user_regs_struct& r, uint64_t now_ns, std::optional<PointedTimeout>& write) const {
  write.reset();
  if (!active_ || deadline_ns_ < 0 || static_cast<long>(r.rax) != nr_) return false;
  const int64_t left = std::max<int64_t>(deadline_ns_ - static_cast<int64_t>(now_ns), 0);
  uint64_t shortened;
  if (pointed_) {
    write = PointedTimeout{(r.rsp - process::kRedZoneBytes - sizeof(timespec)) & ~uint64_t{15},
                           timespec{static_cast<time_t>(left / 1'000'000'000), static_cast<long>(left % 1'000'000'000)}};
    shortened = write->addr;
  } else {
    const uint64_t ms = static_cast<uint64_t>((left + 999'999) / 1'000'000);
    // Only the int's 32 bits are the timeout; the register's upper half stays.
    shortened = (timeout_arg_ & ~0xffffffffull) | (ms & 0xffffffffull);
  }
  if (timeout_register(r) == shortened && !write) return false;
  timeout_register(r) = shortened;
  return true;
}

}  // namespace slsdbg::recorder
