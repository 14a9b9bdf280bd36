#include "recorder/record/syscallbuf.h"

#include <fcntl.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>
#include <sys/wait.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstring>
#include <vector>

#include "common/log.h"
#include "process/proc_maps.h"
#include "process/remote_fd.h"
#include "process/remote_memory.h"
#include "process/signal_policy.h"
#include "process/syscallbuf_stub.h"
#include "recorder/record/syscallbuf_run_out.h"
#include "recorder/record/syscallbuf_site_cache.h"
#include "recorder/record/syscallbuf_sites.h"
#include "recorder/record/syscalls/fast_write.h"

namespace slsdbg::recorder {

using process::write_remote;

namespace {

using namespace process;

bool bufferable(long nr) {
  switch (nr) {
    case SYS_read: case SYS_pread64: case SYS_write: case SYS_pwrite64: case SYS_lseek: case SYS_newfstatat:
    case SYS_statx: case SYS_getdents64: case SYS_openat: case SYS_close: case SYS_poll: case SYS_fcntl:
      return true;
    default:
      return false;
  }
}

// Calls after which an fd number may name another file or other flags.
bool changes_fds(long nr) {
  switch (nr) {
    case SYS_close: case SYS_close_range: case SYS_dup2: case SYS_dup3: case SYS_fcntl:
    case SYS_execve: case SYS_execveat: case SYS_setrlimit: case SYS_prlimit64: case SYS_io_uring_enter:
      return true;
    default:
      return false;
  }
}

// The flags `cmp $-4096, %rax` (wide) or `cmp $0xfffff000, %eax` leaves:
// CF PF AF ZF SF OF from the subtraction, the rest unchanged.
bool is_libc(const store::Mapping& m) { return m.path.find("/libc.so") != std::string::npos; }

uint64_t flags_after_cmp(uint64_t rax, bool wide, uint64_t eflags) {
  const int bits = wide ? 64 : 32;
  const uint64_t mask = wide ? ~uint64_t{0} : 0xffffffffull;
  const uint64_t a = rax & mask, b = wide ? 0xfffffffffffff000ull : 0xfffff000ull;
  const uint64_t res = (a - b) & mask;
  uint64_t f = eflags & ~uint64_t{0x8d5};
  if (a < b) f |= 0x1;                                            // CF
  if (__builtin_parityll(res & 0xff) == 0) f |= 0x4;              // PF: even number of ones
  if ((a ^ b ^ res) & 0x10) f |= 0x10;                            // AF
  if (res == 0) f |= 0x40;                                        // ZF
  if ((res >> (bits - 1)) & 1) f |= 0x80;                         // SF
  if ((((a ^ b) & (a ^ res)) >> (bits - 1)) & 1) f |= 0x800;      // OF
  return f;
}

bool vm_read(pid_t pid, uint64_t addr, void* out, uint64_t len) {
  struct iovec local{out, len};
  struct iovec remote{reinterpret_cast<void*>(addr), len};
  return process_vm_readv(pid, &local, 1, &remote, 1, 0) == static_cast<ssize_t>(len);
}

bool vm_write(pid_t pid, uint64_t addr, const void* data, uint64_t len) {
  struct iovec local{const_cast<void*>(data), len};
  struct iovec remote{reinterpret_cast<void*>(addr), len};
  return process_vm_writev(pid, &local, 1, &remote, 1, 0) == static_cast<ssize_t>(len);
}

}  // namespace

Result<SyscallBuf> SyscallBuf::arm(pid_t pid) {
  SyscallBuf b;
  b.pid_ = pid;
  b.pidfd_ = TRY_CTX(open_pidfd(pid), "syscall buffer");
  const uint64_t one = 1;
  TRY_CTX(b.write_header(kSysbufEnabledOffset, &one, sizeof one), "enabling the syscall buffer");
  return b;
}

Result<SyscallBuf> SyscallBuf::adopt_forked(pid_t pid) {
  SyscallBuf b;
  b.pid_ = pid;
  b.pidfd_ = TRY_CTX(open_pidfd(pid), "syscall buffer");
  const uint64_t zero[2] = {0, 0};  // cursor, busy
  TRY_CTX(b.write_header(kSysbufCursorOffset, zero, sizeof zero), "taking over the syscall buffer");
  b.table_dirty_ = true;
  TRY_CTX(b.forget_fds(), "taking over the syscall buffer");
  const uint64_t one = 1;
  TRY_CTX(b.write_header(kSysbufEnabledOffset, &one, sizeof one), "enabling the syscall buffer");
  return b;
}

Status SyscallBuf::write_header(uint64_t offset, const void* data, uint64_t len) {
  if (!vm_write(pid_, kSysbufHeaderAddr + offset, data, len)) return Error::from_errno("writing the syscall buffer header");
  return ok_status();
}

uint8_t SyscallBuf::classify(int fd) const {
  Result<UniqueFd> copied = copy_fd_from(pidfd_.get(), fd);
  if (!copied.ok()) return 0;
  struct stat st;
  if (fstat(copied->get(), &st) != 0) return 0;
  if (S_ISDIR(st.st_mode)) return kSysbufFdDir;
  if (S_ISCHR(st.st_mode))
    return (st.st_rdev == makedev(1, 3) || st.st_rdev == makedev(1, 5)) ? (kSysbufFdRead | kSysbufFdWrite) : 0;
  if (!S_ISREG(st.st_mode) || !local_filesystem(copied->get())) return 0;
  return file_size_unlimited(pid_) ? (kSysbufFdRead | kSysbufFdWrite) : kSysbufFdRead;
}

Status SyscallBuf::forget_fds() {
  known_.reset();
  if (!table_dirty_) return ok_status();
  table_.fill(0);
  table_dirty_ = false;
  return write_header(kSysbufTableOffset, table_.data(), table_.size());
}

void SyscallBuf::on_threads_gone() { threads_ = false; }

bool SyscallBuf::before_syscall(long nr, const std::array<uint64_t, 6>& args, uint64_t pc, pid_t tid) {
  // A vfork child shares the buffer and would fill it with its own calls:
  // off from a fork-family call until the next trapped one of the thread
  // that made it (a vfork returns to it only once the child let go of the
  // memory; other threads run meanwhile).
  const bool forking = nr == SYS_clone || nr == SYS_clone3 || nr == SYS_fork || nr == SYS_vfork;
  // Threads share the one buffer (one runs at a time, threads.md); while
  // another lives, no site is patched (maybe_patch).
  uint64_t clone_flags = nr == SYS_clone ? args[0] : 0;
  if (nr == SYS_clone3 && !vm_read(pid_, args[0], &clone_flags, sizeof clone_flags)) clone_flags = CLONE_THREAD;
  if (clone_flags & CLONE_THREAD) threads_ = true;
  if (forking != disabled_ && (forking || tid == forked_by_)) {
    const uint64_t enabled = forking ? 0 : 1;
    if (write_header(kSysbufEnabledOffset, &enabled, sizeof enabled).ok()) disabled_ = forking;
    forked_by_ = tid;
  }
  if (nr == SYS_rt_sigreturn && handler_depth_ > 0) handler_depth_--;
  if (changes_fds(nr)) {
    // Fails only when the tracee's area is gone (exec, death), which
    // arm() or the exit then takes care of.
    (void)forget_fds();
    return false;
  }
  if (!bufferable(nr)) return false;
  if (args[0] < table_.size() && !known_.test(args[0])) {
    known_.set(args[0]);
    if (const uint8_t kind = classify(static_cast<int>(args[0]))) {
      table_[args[0]] = kind;
      table_dirty_ = write_header(kSysbufTableOffset + args[0], &kind, 1).ok() || table_dirty_;
    }
  }
  const uint64_t site = pc - 2;
  return !patched_.count(site) && !declined_.count(site);
}

Result<bool> SyscallBuf::maybe_patch(user_regs_struct& r, long nr, int64_t result) {
  const uint64_t site = r.rip - 2;
  if (!bufferable(nr) || process::is_restart_code(result) || patched_.count(site) || declined_.count(site)) return false;
  // A signal frame below the handler may hold a pc right after some site's
  // `syscall`, which a patch would turn into the middle of its `call`.
  if (handler_depth_ > 0) return false;
  // Another thread may wait in the kernel at a site's `syscall`, or stand
  // right after it: it would come back into the middle of the `call` (a
  // checkpoint rewinds it to the site, where it then enters the stub: a
  // state replay does not reach, #16, thr_churn; thr_poll_cut's poll
  // returned 0).
  if (threads_) return false;
  uint8_t code[8];
  const bool readable = vm_read(pid_, site, code, sizeof code);
  const bool wide = readable && std::memcmp(code, kSysbufWideSite, sizeof kSysbufWideSite) == 0;
  const bool narrow = readable && std::memcmp(code, kSysbufNarrowSite, sizeof kSysbufNarrowSite) == 0;
  std::vector<store::Mapping> maps;
  bool in_libc = false;
  if (wide || narrow) {
    maps = TRY(read_maps(pid_));
    for (const store::Mapping& m : maps)
      if (site >= m.start && site + sizeof code <= m.end && is_libc(m)) in_libc = true;
  }
  if (!in_libc) {
    declined_.insert(site);
    return false;
  }
  const auto t0 = std::chrono::steady_clock::now();
  if (!sites_loaded_) {
    sites_loaded_ = true;
    bool cached = false;
    Result<LibcSiteTable> t = libc_site_table(pid_, maps, site_cache_dir(), &cached);
    if (t.ok()) {
      sites_ = std::move(*t);
      libc_base_ = libc_layout(maps)->base;
    }
    SLSDBG_DEBUG("record", "syscall buffer: libc's sites %s", t.ok() ? (cached ? "from the cache" : "checked")
                                                                     : ("not checked, none patched: " + t.error().message).c_str());
  }
  // The first patch takes every site the scan finds along: one stop, one
  // forced checkpoint for all.
  bool scan_patched = false;
  if (!scanned_) {
    scanned_ = true;
    scan_patched = TRY(patch_scanned_sites()) > 0;
    SLSDBG_DEBUG("record", "syscall buffer: libc checked and patched in %lld us",
                 static_cast<long long>(std::chrono::duration_cast<std::chrono::microseconds>(
                                            std::chrono::steady_clock::now() - t0)
                                            .count()));
  }
  if (!patched_.count(site)) {
    // A site some branch enters after its `syscall` stays trapped (syscallbuf_jumps.h).
    const LibcSite* s = sites_ ? sites_->find(site - libc_base_) : nullptr;
    if (!s || s->refused || s->wide != wide) {
      // Left trapped; the scan's patches still need their checkpoint.
      declined_.insert(site);
      return scan_patched;
    }
    TRY(patch_site(site, wide));
  }
  // Where the original `cmp` would have left the tracee.
  r.eflags = flags_after_cmp(r.rax, wide, r.eflags);
  r.rip = site + (wide ? 8 : 7);
  return true;
}

Status SyscallBuf::patch_site(uint64_t site, bool wide, int mem_fd) {
  const uint32_t ptr = static_cast<uint32_t>(wide ? kSysbufPtrWide : kSysbufPtrNarrow);
  uint8_t patch[8] = {0xff, 0x14, 0x25, 0, 0, 0, 0, 0x90};
  std::memcpy(patch + 3, &ptr, 4);
  const uint64_t len = wide ? 8 : 7;
  if (mem_fd < 0) TRY_CTX(write_remote(pid_, site, patch, len), "patching a syscall site");
  else if (pwrite(mem_fd, patch, len, static_cast<off_t>(site)) != static_cast<ssize_t>(len))
    return Error::from_errno("patching a syscall site");
  patched_.insert(site);
  return ok_status();
}

Result<size_t> SyscallBuf::patch_scanned_sites() {
  if (!sites_) return size_t{0};
  // The bufferable sites whose number is set right before them, each read
  // again (one process_vm_readv for all): a cached table only says where to
  // look and which sites a branch enters.
  std::vector<const LibcSite*> wanted;
  size_t refused = 0;
  for (const LibcSite& s : sites_->sites) {
    if (s.nr < 0 || !bufferable(s.nr)) continue;
    const uint64_t addr = libc_base_ + s.offset;
    if (patched_.count(addr) || declined_.count(addr)) continue;
    if (s.refused) {
      declined_.insert(addr);
      refused++;
      continue;
    }
    wanted.push_back(&s);
  }
  std::vector<std::array<uint8_t, 14>> windows(wanted.size());
  std::vector<struct iovec> local(wanted.size()), remote(wanted.size());
  for (size_t i = 0; i < wanted.size(); i++) {
    local[i] = {windows[i].data(), windows[i].size()};
    remote[i] = {reinterpret_cast<void*>(libc_base_ + wanted[i]->offset - 6), windows[i].size()};
  }
  size_t found = 0;
  const std::string mem = "/proc/" + std::to_string(pid_) + "/mem";
  UniqueFd fd(open(mem.c_str(), O_RDWR | O_CLOEXEC));
  if (!fd.valid()) return Error::from_errno("open " + mem);
  for (size_t at = 0; at < wanted.size(); at += IOV_MAX) {
    const size_t n = std::min<size_t>(IOV_MAX, wanted.size() - at);
    const ssize_t got = process_vm_readv(pid_, &local[at], n, &remote[at], n, 0);
    for (size_t i = at; i < at + n; i++) {
      const uint64_t addr = libc_base_ + wanted[i]->offset;
      const bool read = got >= static_cast<ssize_t>((i - at + 1) * windows[i].size());
      uint8_t w[14];
      std::memcpy(w, windows[i].data(), sizeof w);
      if (!read || !site_matches(w, *wanted[i])) {
        declined_.insert(addr);  // not this libc's bytes after all: left to trap
        continue;
      }
      TRY(patch_site(addr, wanted[i]->wide, fd.get()));
      found++;
    }
  }
  SLSDBG_DEBUG("record", "syscall buffer: %zu glibc sites patched by the scan, %zu refused (a branch enters them)", found,
               refused);
  return found;
}

Result<SysbufEntries> SyscallBuf::take(pid_t ran, bool may_reset, const std::function<void(const SysbufEntryHead&)>& seen) {
  static_assert(kSysbufCursorOffset == 0 && kSysbufBusyOffset == 8);
  uint64_t head[2] = {0, 0};  // cursor, busy
  if (!vm_read(pid_, kSysbufHeaderAddr, head, sizeof head)) return SysbufEntries();  // no area (exec)
  const uint64_t cursor = head[0];
  if (cursor > kSysbufEntriesSize || cursor < consumed_) return Error::msg("syscall buffer: corrupt cursor");
  SysbufEntries taken;
  if (cursor > consumed_) {
    const uint64_t size = cursor - consumed_;
    SysbufBytePool::Bytes bytes = pool_->take();
    if (!vm_read(pid_, kSysbufEntriesAddr + consumed_, bytes.get(), size))
      return Error::from_errno("reading the syscall buffer");
    taken = TRY(SysbufEntries::parse(ran, std::move(bytes), size, [&](const SysbufEntryHead& e) {
      note_fd_change(e);
      seen(e);
    }));
    drained_ += taken.count();
    consumed_ = cursor;
  }
  // Reset only while no entry is half made: a stub that claimed the buffer
  // holds its entry's address in a register. A thread running meanwhile
  // could claim it between the read of `busy` and the reset.
  if (may_reset && consumed_ != 0 && head[1] == 0) {
    const uint64_t zero = 0;
    TRY(write_header(kSysbufCursorOffset, &zero, sizeof zero));
    consumed_ = 0;
  }
  return taken;
}

// The stub cleared a closed fd's byte, set an opened one's (a directory's,
// for O_DIRECTORY) and copied a duplicated one's; the mirror follows.
void SyscallBuf::note_fd_change(const SysbufEntryHead& ev) {
  if (ev.nr == SYS_close && ev.args[0] < table_.size()) {
    table_[ev.args[0]] = 0;
    known_.reset(ev.args[0]);
  } else if (ev.nr == SYS_openat && ev.result >= 0 && static_cast<uint64_t>(ev.result) < table_.size()) {
    const bool dir = (ev.args[2] & O_DIRECTORY) != 0;
    table_[ev.result] = dir ? kSysbufFdDir : 0;
    known_.set(ev.result, dir);
    table_dirty_ = table_dirty_ || dir;
  } else if (ev.nr == SYS_fcntl && (ev.args[1] == F_DUPFD || ev.args[1] == F_DUPFD_CLOEXEC) && ev.result >= 0 &&
             static_cast<uint64_t>(ev.result) < table_.size()) {
    const uint8_t kind = ev.args[0] < table_.size() ? table_[ev.args[0]] : 0;
    table_[ev.result] = kind;
    known_.set(ev.result, ev.args[0] < table_.size() && known_.test(ev.args[0]));
  }
}

Status SyscallBuf::step_out(pid_t tid, std::deque<siginfo_t>& intercepted) {
  const SysbufStubLayout layout = sysbuf_stub_layout();
  bool ran_out = false;  // tried once: it ends at a `ret` (stepped) or at the trapped `syscall`
  int stops = 0;         // the tracee's: single steps, and the run out
  for (int steps = 0; steps < 10000; steps++) {
    user_regs_struct r;
    if (ptrace(PTRACE_GETREGS, tid, nullptr, &r) != 0) return Error::from_errno("ptrace(PTRACE_GETREGS)");
    // Outside, or at the trapped `syscall` (replay reaches it the same way).
    if (!layout.contains(r.rip) || r.rip == layout.slow) {
      if (stops) SLSDBG_DEBUG("sysbuf", "left the stub in %d stops", stops);
      return ok_status();
    }
    // Right after it, interrupted with a restart pending (our interrupt cut
    // a blocking read of a pipe): a step would restart the call and wait on
    // it, with the children that could end it left stopped. Settled as at
    // any other site (rewound to the `syscall`) before the checkpoint.
    const int64_t rax = static_cast<int64_t>(r.rax);
    if (r.rip == layout.slow + 2 && process::is_restart_code(rax)) return ok_status();
    // Run to the way out (one stop) rather than one step per instruction;
    // the `ret` itself is stepped below.
    if (!ran_out && r.rip != layout.ret_wide && r.rip != layout.ret_narrow) {
      ran_out = true;
      if (TRY(run_to_stub_exit(tid, layout, intercepted))) {
        stops++;
        continue;
      }
    }
    if (r.rip == layout.movs && r.rcx != 0) {
      // Finish the copy here rather than one step per byte.
      std::vector<uint8_t> tmp(r.rcx);
      if (!vm_read(pid_, r.rsi, tmp.data(), tmp.size()) || !vm_write(pid_, r.rdi, tmp.data(), tmp.size()))
        return Error::from_errno("finishing the syscall buffer's copy");
      r.rsi += r.rcx;
      r.rdi += r.rcx;
      r.rcx = 0;
      r.rip += 2;
      if (ptrace(PTRACE_SETREGS, tid, nullptr, &r) != 0) return Error::from_errno("ptrace(PTRACE_SETREGS)");
      continue;
    }
    uint8_t op = 0;
    if (!vm_read(pid_, r.rip, &op, 1)) return Error::from_errno("reading the syscall buffer stub");
    if (op == 0x9c) {
      // pushfq, stepped, would push the trap flag, and the stub's popfq
      // would then leave it set in the program: push the flags ourselves.
      const uint64_t flags = r.eflags & ~uint64_t{0x100};
      r.rsp -= 8;
      if (!vm_write(pid_, r.rsp, &flags, sizeof flags)) return Error::from_errno("stepping the stub's pushfq");
      r.rip += 1;
      if (ptrace(PTRACE_SETREGS, tid, nullptr, &r) != 0) return Error::from_errno("ptrace(PTRACE_SETREGS)");
      continue;
    }
    if (op == 0x9d) {
      // popfq, stepped, leaves the trap flag to the program: pop ourselves.
      uint64_t flags = 0;
      if (!vm_read(pid_, r.rsp, &flags, sizeof flags)) return Error::from_errno("stepping the stub's popfq");
      r.eflags = flags & ~uint64_t{0x100};
      r.rsp += 8;
      r.rip += 1;
      if (ptrace(PTRACE_SETREGS, tid, nullptr, &r) != 0) return Error::from_errno("ptrace(PTRACE_SETREGS)");
      continue;
    }
    stops++;
    if (ptrace(PTRACE_SINGLESTEP, tid, nullptr, nullptr) != 0) return Error::from_errno("ptrace(PTRACE_SINGLESTEP)");
    int status = 0;
    if (waitpid(tid, &status, __WALL) != tid) return Error::from_errno("waitpid");
    if (!WIFSTOPPED(status)) return Error::msg("the tracee ended while stepping out of the syscall buffer");
    const int sig = WSTOPSIG(status);
    if (sig == SIGTRAP || (status >> 16) != 0) continue;  // our step; or an event stop the next step resumes
    siginfo_t si;
    if (ptrace(PTRACE_GETSIGINFO, tid, nullptr, &si) == 0) intercepted.push_back(si);
  }
  return Error::msg("could not step out of the syscall buffer stub");
}

}  // namespace slsdbg::recorder
