#include "engine/restore/remote_calls.h"

#include <array>
#include <cstring>
#include <vector>

#include "process/inject.h"

namespace slsdbg::restore {

Result<int64_t> RemoteCalls::raw(long nr, uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3, uint64_t a4,
                                 uint64_t a5) {
  calls_++;
  return process::inject_syscall(task_, nr, std::array<uint64_t, 6>{a0, a1, a2, a3, a4, a5});
}

Result<int64_t> RemoteCalls::call(const char* name, long nr, uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3,
                                  uint64_t a4, uint64_t a5) {
  int64_t r = TRY(raw(nr, a0, a1, a2, a3, a4, a5));
  if (r < 0 && r > -4096) return Error::from_errno(std::string(name) + " (in the restored process)", int(-r));
  return r;
}

Result<uint64_t> RemoteCalls::put(std::span<const uint8_t> bytes) {
  uint64_t size = (bytes.size() + 15) & ~uint64_t(15);
  if (scratch_ == 0 || used_ + size > scratch_size_) return Error::msg("restore scratch memory exhausted");
  uint64_t at = scratch_ + used_;
  TRY(task_.write_memory(RemoteAddr(at), bytes));
  used_ += size;
  return at;
}

Result<uint64_t> RemoteCalls::put_string(const std::string& s) {
  std::vector<uint8_t> bytes(s.begin(), s.end());
  bytes.push_back(0);
  return put(bytes);
}

}  // namespace slsdbg::restore
