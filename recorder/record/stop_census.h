#pragma once
// StopCensus: how many seccomp stops each syscall number cost a recording,
// so the calls the syscall buffer still leaves traced are easy to name
// (`SLSDBG_LOG=debug slsdbg record ...` prints the largest counts at the
// end). Counting is an array increment per stop.
#include <array>
#include <cstdint>
#include <string>

namespace slsdbg::recorder {

class StopCensus {
 public:
  static constexpr int kMaxNr = 512;

  void note(long nr) {
    total_++;
    if (nr >= 0 && nr < kMaxNr) counts_[static_cast<size_t>(nr)]++;
  }
  uint64_t total() const { return total_; }
  uint64_t count(long nr) const { return nr >= 0 && nr < kMaxNr ? counts_[static_cast<size_t>(nr)] : 0; }
  // "read 120, fstat 3, ..." for the `top` largest counts, largest first.
  std::string summary(size_t top) const;

 private:
  std::array<uint64_t, kMaxNr> counts_{};
  uint64_t total_ = 0;
};

}  // namespace slsdbg::recorder
