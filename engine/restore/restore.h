// Restore checkpoint k of a recording into a fresh process under ptrace.
//
// How (details in README.md): start the restorer (a static, -nostdlib program
// linked at kRestorerBase, far from any program's addresses) under ptrace and
// take it over at its execve stop; install the injection page at
// kInjectPageAddr; with injected syscalls unmap everything else of the
// restorer (its code, stack, [vdso], [vvar]); map every recorded region at its
// address; write the recorded contents (process_vm_writev in large batches,
// zero pages skipped); mprotect to the recorded protection; set brk and the
// rest of the kernel's layout fields (prctl PR_SET_MM_MAP), /proc/PID/exe,
// cwd, the fd table, signal handlers, pending signals and mask; finally the
// registers (GPRs with fs/gs base, XSAVE). The other threads of a
// multithreaded checkpoint are cloned from the leader (restore_threads.cc).
// The injection page is then the only
// trace of the restorer, and recordings contain the same page at the same
// address, so the address space equals the recorded one.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "common/ids.h"
#include "common/result.h"
#include "process/task.h"
#include "store/recording.h"

namespace slsdbg::restore {

// Where the restorer executable is linked (CMakeLists.txt passes it to ld).
inline constexpr uint64_t kRestorerBase = 0x200000000000ull;

struct RestoreTimings {
  uint64_t total_ns = 0;
  uint64_t spawn_ns = 0;      // restorer started, injection page installed
  uint64_t map_ns = 0;        // munmap of the restorer + mmap of every region
  uint64_t fill_ns = 0;       // contents from the store into the process
  uint64_t state_ns = 0;      // mm layout, files, signals, registers
  uint64_t bytes_written = 0; // bytes written into the process
  uint64_t injected_syscalls = 0;
  uint64_t pages_skipped_zero = 0;
  uint64_t pages_same_as_file = 0;
};

// What restore could not reproduce, one line each ("fd 3 (pipe:[123]) not
// restored: pipes cannot be reopened"), plus timings.
struct RestoreReport {
  std::vector<std::string> warnings;
  RestoreTimings timings;
};

class LazyFiller;

// A thread of a multithreaded checkpoint other than the leader, as restore
// created it: the tid the recording knew it by, and the live thread (whose
// tid the kernel chose).
struct RestoredThread {
  Tid recorded;
  process::Task task;
};

// Eager: every page is written before restore_checkpoint returns. Lazy:
// private anonymous regions are filled on first touch and in the background
// by a LazyFiller (lazy_fill.h) that the caller owns.
enum class FillMode { Eager, Lazy };

// Resume: descriptors that name files are reopened, the rest reported and
// left closed. Exact (replay): every recorded descriptor number is open and
// no other (non-files hold /dev/null), so descriptor numbers the program
// gets afterwards are the recorded ones.
enum class FdNumbers { Resume, Exact };

struct RestoreOptions {
  // The restorer executable. Empty: $SLSDBG_RESTORER, else `slsdbg-restorer`
  // next to the running executable, else the build tree's.
  std::string restorer_path;
  // Runs in the restorer's child after the seize, before execve (a replay
  // session installs seccomp, PR_SET_TSC, affinity here).
  std::function<Status()> in_child_before_exec;
  // Optional: receives warnings and timings.
  RestoreReport* report = nullptr;
  FillMode fill = FillMode::Eager;
  FdNumbers fd_numbers = FdNumbers::Resume;
  // Required for FillMode::Lazy: must outlive the restored process's first
  // touches, or until its wait_filled() returns.
  LazyFiller* lazy = nullptr;
  // Receives the checkpoint's other threads (threads[1..]), each
  // ptrace-stopped with its registers, in the checkpoint's order. Null: a
  // checkpoint with more than one thread is refused (replay does not run
  // threads yet).
  std::vector<RestoredThread>* threads = nullptr;
  // Give the process its recorded pid where the kernel allows (root, the
  // pid free); else a new one, with a warning. `slsdbg restore` asks: a
  // program may have cached its pid (Python's asyncio checks it).
  bool recorded_pid = false;
};

// On success the returned task (the leader) is ptrace-stopped with the
// checkpoint's registers, as are the other threads (options.threads);
// resuming them all continues the recorded execution.
Result<process::Task> restore_checkpoint(const store::RecordingReader& reader, CheckpointId k, RestoreOptions options);

// The restorer that restore_checkpoint would use, or an error naming where it looked.
Result<std::string> find_restorer(const std::string& explicit_path);

}  // namespace slsdbg::restore
