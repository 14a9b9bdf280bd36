// Injected syscalls with arguments: a small bump allocator over a scratch
// mapping in the tracee for strings and structs the syscalls read, and
// results turned into Errors naming the syscall.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "common/result.h"
#include "process/inject.h"
#include "process/task.h"

namespace slsdbg::restore {

class RemoteCalls {
 public:
  explicit RemoteCalls(process::Task& task) : task_(task) {}

  // The raw result: >= 0, or -errno.
  Result<int64_t> raw(long nr, uint64_t a0 = 0, uint64_t a1 = 0, uint64_t a2 = 0, uint64_t a3 = 0, uint64_t a4 = 0,
                      uint64_t a5 = 0);
  // Like raw, but a negative result is an Error "NAME: strerror" with its errno.
  Result<int64_t> call(const char* name, long nr, uint64_t a0 = 0, uint64_t a1 = 0, uint64_t a2 = 0, uint64_t a3 = 0,
                       uint64_t a4 = 0, uint64_t a5 = 0);

  // Runs `calls` in order, as few stops as the scratch's free part allows
  // (process::inject_syscalls: one stop costs what a syscall injected alone
  // does). The first that fails is an Error "WHAT: strerror", and none after
  // it runs. Returns each result.
  struct Queued {
    std::string what;  // names the call in an error: "mapping 0x1000-0x2000 ...: mmap"
    process::InjectedCall call;
  };
  Result<std::vector<int64_t>> batch(std::span<const Queued> calls);
  // The same for calls whose failures the caller reports itself: every one
  // runs (a failed one ends a stop, the rest go on in the next); each raw
  // result (-errno on failure).
  Result<std::vector<int64_t>> batch_raw(std::span<const process::InjectedCall> calls);

  // Scratch memory: [addr, addr+size) is mapped read-write in the tracee.
  void use_scratch(uint64_t addr, uint64_t size) {
    scratch_ = addr;
    scratch_size_ = size;
    used_ = 0;
  }
  void reset_scratch() { used_ = 0; }
  // Copies bytes into scratch; returns their remote address.
  Result<uint64_t> put(std::span<const uint8_t> bytes);
  Result<uint64_t> put_string(const std::string& s);

  process::Task& task() { return task_; }
  uint64_t calls() const { return calls_; }

 private:
  // Runs `calls` in order, in as few stops as the scratch allows, up to
  // and including the first that fails; the raw result of each that ran.
  Result<std::vector<int64_t>> run_until_failure(std::span<const process::InjectedCall> calls);

  process::Task& task_;
  uint64_t scratch_ = 0, scratch_size_ = 0, used_ = 0;
  uint64_t calls_ = 0;
};

}  // namespace slsdbg::restore
