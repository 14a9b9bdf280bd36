// Running code inside a stopped tracee: system calls (mmap, userfaultfd,
// rt_sigaction ...) and small stubs, from a fixed injection page.
//
//   kInjectPageAddr          r-x  code: `syscall; int3` at +0, stubs after it
//   kInjectPageAddr + 4 KiB  rw-  scratch: output buffers of injected code
//   kInjectPageAddr + 8 KiB  the syscall buffer's stub and memory
//                            (syscallbuf_stub.h), up to the staging area
//
// The recorder's seccomp filter ALLOWS every syscall whose pc lies in the code
// page, so injected syscalls are never trapped. Record and replay install the
// same pages at the same address; checkpoint capture leaves them out of the
// memory image (restore re-creates them with install_injection_page()).
//
// Every function here leaves the task in the same kind of stop it found it in
// (event stop, seccomp stop, syscall-enter/-exit stop, signal-delivery stop
// with the same siginfo), with the same registers and signal mask. An exec
// event stop comes back as a PTRACE_EVENT_STOP (same resumption semantics). A
// task in group-stop is refused. Signals arriving meanwhile stay pending
// (the mask is all-blocked while injected code runs).
#pragma once

#include <array>
#include <functional>
#include <cstdint>
#include <span>
#include <vector>

#include "common/result.h"
#include "process/task.h"

namespace slsdbg::process {

inline constexpr uint64_t kInjectPageAddr = 0x70000000;  // same in record and replay
inline constexpr uint64_t kInjectScratchAddr = kInjectPageAddr + 4096;
inline constexpr uint64_t kInjectAreaSize = 0x100000;  // code, scratch, syscall buffer
inline constexpr uint64_t kInjectSyscallOffset = 0;      // syscall; int3
// Optional staging area (checkpoint capture's in-tracee page copy): a shared
// memfd mapping, header {count, addresses} then page data.
inline constexpr uint64_t kStagingAddr = kInjectPageAddr + 0x100000;
inline constexpr uint64_t kStagingMaxPages = 8192;
inline constexpr uint64_t kStagingDataAddr = kStagingAddr + 0x20000;  // header: 8 + 8 * 8192 bytes fit
inline constexpr uint64_t kStagingSize = (kStagingDataAddr - kStagingAddr) + kStagingMaxPages * 4096;

// Maps and fills the injection pages (the first syscall runs from a
// `syscall` written over the current pc, bytes restored afterwards).
// Idempotent per address space.
Status install_injection_page(Task& task);

// Runs syscall `nr` in the tracee; registers and stop kind are restored.
// Returns the raw result (-errno on failure). Must not be used for
// rt_sigprocmask (use Task::set_signal_mask): the mask is restored afterwards.
Result<int64_t> inject_syscall(Task& task, long nr, std::array<uint64_t, 6> args);

// Offsets and bytes of the stubs the page carries (inject_stubs.cc).
struct InjectedStub {
  uint64_t offset;                // in the code page
  std::span<const uint8_t> code;  // ends in int3
};

// Runs `stub` in the tracee with `setup` applied to the registers; returns
// the registers at its int3. Registers and stop kind are restored.
Result<user_regs_struct> run_injected_stub(Task& task, const InjectedStub& stub,
                                           const std::function<void(user_regs_struct&)>& setup);
// rt_sigaction(sig, NULL, scratch + 32*(sig-1), 8) for sig 1..64, then
// brk(0) (result in rax).
InjectedStub sigaction_dump_stub();
// Copies the pages listed in the staging header into the staging data area.
InjectedStub page_copy_stub();
// Runs a table of syscalls (rbx: the table, r12: their count; 64 bytes
// each: nr, six arguments, the result written back), up to the first that fails.
InjectedStub syscall_batch_stub();

// A syscall for inject_syscalls.
struct InjectedCall {
  long nr = 0;
  std::array<uint64_t, 6> args{};
};
inline constexpr uint64_t kInjectedCallBytes = 64;

// Runs `calls` in order in one injection (syscall_batch_stub), their table
// written at `table` (writable in the tracee, calls.size() *
// kInjectedCallBytes bytes). Returns the raw result of each call that ran:
// all of them, or up to and including the first that failed (-errno).
// Registers and stop kind are restored, as by inject_syscall.
Result<std::vector<int64_t>> inject_syscalls(Task& task, std::span<const InjectedCall> calls, uint64_t table);

}  // namespace slsdbg::process
