#include "engine/restore/remote_calls.h"

#include <array>
#include <cstring>
#include <vector>

#include "process/inject.h"

namespace slsdbg::restore {

namespace {
bool failed(int64_t r) { return r < 0 && r > -4096; }  // -errno
}  // namespace

Result<int64_t> RemoteCalls::raw(long nr, uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3, uint64_t a4,
                                 uint64_t a5) {
  calls_++;
  return process::inject_syscall(task_, nr, std::array<uint64_t, 6>{a0, a1, a2, a3, a4, a5});
}

Result<int64_t> RemoteCalls::call(const char* name, long nr, uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3,
                                  uint64_t a4, uint64_t a5) {
  int64_t r = TRY(raw(nr, a0, a1, a2, a3, a4, a5));
  if (failed(r)) return Error::from_errno(std::string(name) + " (in the restored process)", int(-r));
  return r;
}

Result<std::vector<int64_t>> RemoteCalls::run_until_failure(std::span<const process::InjectedCall> calls) {
  std::vector<int64_t> results;
  results.reserve(calls.size());
  const uint64_t room = scratch_ == 0 ? 0 : (scratch_size_ - used_) / process::kInjectedCallBytes;
  const uint64_t table = (scratch_ + used_ + 15) & ~uint64_t(15);
  while (results.size() < calls.size() && (results.empty() || !failed(results.back()))) {
    const size_t done = results.size();
    const size_t n = std::min<size_t>(calls.size() - done, room > 1 ? room - 1 : 0);
    if (n == 0) {  // no room for a table: one at a time
      const process::InjectedCall& c = calls[done];
      results.push_back(TRY(raw(c.nr, c.args[0], c.args[1], c.args[2], c.args[3], c.args[4], c.args[5])));
      continue;
    }
    const std::vector<int64_t> got = TRY(process::inject_syscalls(task_, calls.subspan(done, n), table));
    if (got.empty()) return Error::msg("internal: a batch of injected calls ran none");
    calls_ += got.size();
    results.insert(results.end(), got.begin(), got.end());
  }
  return results;
}

Result<std::vector<int64_t>> RemoteCalls::batch(std::span<const Queued> calls) {
  std::vector<process::InjectedCall> plain;
  plain.reserve(calls.size());
  for (const Queued& q : calls) plain.push_back(q.call);
  std::vector<int64_t> results = TRY(run_until_failure(plain));
  if (!results.empty() && failed(results.back()))
    return Error::from_errno(calls[results.size() - 1].what + " (in the restored process)", int(-results.back()));
  return results;
}

Result<std::vector<int64_t>> RemoteCalls::batch_raw(std::span<const process::InjectedCall> calls) {
  std::vector<int64_t> results;
  while (results.size() < calls.size()) {
    const std::vector<int64_t> got = TRY(run_until_failure(calls.subspan(results.size())));
    results.insert(results.end(), got.begin(), got.end());
  }
  return results;
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
