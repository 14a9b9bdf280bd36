// SyscallBuf: the recorder's side of the in-process syscall fast path
// (`record --syscall-buffer`, experimental; docs/performance.md `## record`).
//
// Calls that cannot block run in the tracee without a ptrace stop:
//  - read, pread64, write, pwrite64, lseek, fstat (newfstatat or statx with
//    AT_EMPTY_PATH, whatever the path) and close, on fds the recorder has seen to be a
//    regular file of a local filesystem, /dev/null or /dev/zero (reads
//    and writes), or a directory (lseek, fstat, close, getdents64);
//  - newfstatat and statx without AT_EMPTY_PATH (the kernel resolves the
//    path; no fd);
// A bad pointer gets what the kernel returns (EFAULT, or a short count):
// the stub reads no memory of the program but what the kernel wrote.
//  - openat with O_NONBLOCK, O_DIRECTORY or O_PATH (a FIFO cannot block
//    it); its fd's byte is cleared, or set to directory for O_DIRECTORY;
//  - poll with a zero timeout;
//  - the vDSO's clock reads (process/vdso_patch.h calls the stub from the
//    vDSO's entry points): clock_gettime, clock_getres, time, gettimeofday
//    with a null timezone;
//  - fcntl F_GETFD, F_SETFD, F_GETFL, F_DUPFD and F_DUPFD_CLOEXEC on any fd
//    (the new fd's byte is copied from the old one's).
// Everything else stays traced: reads of pipes, sockets and ttys may block.
// Descriptors: the stub itself keeps the bytes of fds it closes, opens and
// duplicates; the drain tells the recorder's mirror, its fast writes
// (FastWrite) and the capture (whose fd table is re-read after buffered
// activity).
//
// 1. A glibc syscall site (`syscall; cmp $-4096, %rax|%eax` in libc.so) is
//    patched into `call *ptr` to the stub (process/syscallbuf_stub.h) at
//    the exit stop of its first trapped call; the first such patch also
//    patches every site of a bufferable call the scan of libc's code finds
//    (syscallbuf_sites.h; the scan and its jump check are kept per libc
//    build in the user's cache, syscallbuf_site_cache.h). The stop's rip is moved past the patch with the
//    flags the `cmp` would set, and a forced checkpoint follows, so replay
//    crosses the patches by restore (the libc pages are in it). No patch is
//    made while a signal handler runs (a frame below may sit at a site),
//    nor at a site that a direct branch enters after its `syscall`
//    (syscallbuf_jumps.h: the patch would cut that instruction).
// 2. The fd table in the shared header is filled lazily at the seccomp stop
//    of a traced call on an fd, and cleared before any call that may close,
//    replace or re-flag an fd (and after an unmodelled one). Across a
//    fork-family call the stub is disabled (a vfork child shares the
//    buffer) until the forking thread's next trapped call.
// 3. At every stop of the tracee the committed entries are taken out and
//    logged (by the store's thread, syscallbuf_entries.h) as the Syscall
//    events the traced path would have logged (same number, args, result
//    and output bytes), in order, before anything the stop logs. At
//    an interrupt stop that takes a checkpoint the tracee is first run
//    out of the stub, so no checkpoint sits between a buffered syscall and
//    its entry. The buffer is reset only while no stub holds it (busy).
// Threads share the one buffer: one thread runs program code at a time
// (thread_set.h), so the entries since the last take are all the running
// thread's calls, logged under its tid, whichever thread's stop drains
// them. At a stop of another thread (a call's exit in the kernel, a new
// thread) the running one may be inside the stub: the committed entries
// are read then (a cursor is written after its entry), the reset waits for
// a stop of the running thread. A thread that gives way or is interrupted
// is out of the stub's fast path first (a call that may block is trapped;
// an interrupt runs it out), so no two threads fill entries at once.
// Replay: its stub takes the trapped path (the header is zero there), whose
// call is served from the log like any other; a checkpoint at the stub's
// trapped `syscall` is matched as a rewound syscall (replay_session.cc).
#pragma once

#include <signal.h>
#include <sys/types.h>
#include <sys/user.h>

#include <array>
#include <bitset>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <vector>

#include "common/fd.h"
#include "common/result.h"
#include "process/syscallbuf_stub.h"
#include "recorder/record/syscallbuf_entries.h"
#include "recorder/record/syscallbuf_site_cache.h"
#include "store/event.h"
#include "store/process_state.h"

namespace slsdbg::recorder {

class SyscallBuf {
 public:
  // Enables the stub in `pid`'s freshly installed injection area.
  static Result<SyscallBuf> arm(pid_t pid);
  // Takes over the buffer a forked child inherited with its parent's
  // injection area and patched libc: its entries so far were the parent's
  // (logged by the parent's session), its fd table a copy of the parent's
  // at the fork; both are cleared, and the stub enabled for the child.
  static Result<SyscallBuf> adopt_forked(pid_t pid);

  // At the seccomp stop of thread `tid`'s traced syscall. Returns true when
  // its site may be patched at the exit stop (the caller must let it run
  // traced).
  bool before_syscall(long nr, const std::array<uint64_t, 6>& args, uint64_t pc, pid_t tid);
  // At the exit stop of a modelled call: patches its site when eligible and
  // moves `r` past it. True: patched; set the registers, force a checkpoint.
  Result<bool> maybe_patch(user_regs_struct& r, long nr, int64_t result);
  // A signal is delivered to a handler (its rt_sigreturn is seen in
  // before_syscall).
  void on_handler_entry() { handler_depth_++; }
  // Forgets every fd classification (after an unmodelled syscall).
  Status forget_fds();
  // Every thread but one is gone or in exit(): sites may be patched again.
  void on_threads_gone();

  // Takes the committed entries out of the tracee (to be logged, in order,
  // before anything this stop logs), as calls of thread `ran` (the one
  // that ran program code since the last take: one runs at a time), and
  // resets the buffer when `may_reset` (no thread runs now: one that did
  // could claim the buffer between the check and the reset); `seen` is
  // called with each entry's call at once.
  Result<SysbufEntries> take(pid_t ran, bool may_reset, const std::function<void(const SysbufEntryHead&)>& seen);
  // At an interrupt stop of thread `tid`: runs it out of the stub to a
  // `ret` with hardware breakpoints (syscallbuf_run_out.h) and steps over
  // it; single steps where the breakpoints cannot be set (a `rep movsb` is
  // then finished by the recorder). Signals reported meanwhile are appended
  // to `intercepted`, undelivered.
  Status step_out(pid_t tid, std::deque<siginfo_t>& intercepted);

  uint64_t drained() const { return drained_; }
  uint64_t patched_sites() const { return patched_.size(); }

 private:
  Status write_header(uint64_t offset, const void* data, uint64_t len);
  uint8_t classify(int fd) const;
  void note_fd_change(const SysbufEntryHead& ev);
  Status patch_site(uint64_t site, bool wide, int mem_fd = -1);  // mem_fd: /proc/PID/mem, else opened
  Result<size_t> patch_scanned_sites();  // sites patched

  pid_t pid_ = -1;
  UniqueFd pidfd_;
  std::array<uint8_t, 1024> table_{};
  std::bitset<1024> known_;
  bool table_dirty_ = false;
  bool disabled_ = false;  // `enabled` cleared across a fork-family call
  pid_t forked_by_ = -1;   // the thread whose fork-family call cleared it
  bool threads_ = false;   // a CLONE_THREAD call was seen: no patch until on_threads_gone()
  bool scanned_ = false;   // libc's sites were patched in bulk
  bool sites_loaded_ = false;
  std::optional<LibcSiteTable> sites_;  // nullopt: libc could not be checked, no site is patched
  uint64_t libc_base_ = 0;
  int handler_depth_ = 0;  // signal handlers running (one that longjmps out keeps it up: no more patches)
  uint64_t consumed_ = 0;  // bytes of entries already logged
  uint64_t drained_ = 0;
  std::set<uint64_t> patched_, declined_;
  std::shared_ptr<SysbufBytePool> pool_ = SysbufBytePool::create(process::kSysbufEntriesSize);
};

}  // namespace slsdbg::recorder
