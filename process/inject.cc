#include "process/inject.h"
#include "process/syscallbuf_stub.h"

#include <sys/mman.h>
#include <sys/syscall.h>

#include <cstring>
#include <vector>

namespace slsdbg::process {

namespace {

constexpr uint8_t kSyscallInt3[3] = {0x0f, 0x05, 0xcc};

// How to put the task back into the stop it was found in.
enum class ReturnTo { EventStop, SeccompStop, SyscallEntry, SyscallExit, SignalDelivery };

struct SavedStop {
  ReturnTo kind;
  user_regs_struct regs;
  uint64_t signal_mask;
  siginfo_t info{};
};

bool event_inside_syscall(int event) {
  return event == PTRACE_EVENT_EXEC || event == PTRACE_EVENT_CLONE || event == PTRACE_EVENT_FORK ||
         event == PTRACE_EVENT_VFORK || event == PTRACE_EVENT_VFORK_DONE;
}

Result<SavedStop> save_stop(Task& task) {
  if (!task.last_stop().stopped()) return Error::msg("cannot inject into a task that is not stopped");
  // Ask the kernel rather than trust last_stop(): another Task object (or raw
  // waitpid code) may have driven this thread.
  auto queried = task.query_stop();
  if (!queried.ok()) {
    if (queried.error().errno_value == ESRCH) return Error::msg("cannot inject into a task that is not stopped");
    return queried.take_error();
  }
  const WaitResult last = *queried;
  SavedStop s{};
  switch (last.kind) {
    case StopKind::GroupStop:
      return Error::msg("cannot inject into a task in group-stop");
    case StopKind::PtraceEvent:
      s.kind = last.event == PTRACE_EVENT_SECCOMP ? ReturnTo::SeccompStop : ReturnTo::EventStop;
      if (event_inside_syscall(last.event)) {
        // The syscall (execve, clone ...) has not returned yet: its result
        // would overwrite our rax. Finish it first (its exit stop).
        TRY(task.syscall());
        WaitResult w = TRY(task.wait());
        if (w.kind != StopKind::SyscallStop)
          return Error::msg("cannot inject: no syscall-exit stop after event " + std::to_string(last.event));
      }
      break;
    case StopKind::SyscallStop: {
      auto info = TRY(task.syscall_info());
      s.kind = info.op == PTRACE_SYSCALL_INFO_EXIT ? ReturnTo::SyscallExit : ReturnTo::SyscallEntry;
      break;
    }
    case StopKind::SignalDelivery:
      s.kind = ReturnTo::SignalDelivery;
      s.info = TRY(task.siginfo());
      break;
    default:
      return Error::msg("cannot inject: unexpected stop");
  }
  s.regs = TRY(task.regs());
  s.signal_mask = TRY(task.signal_mask());
  TRY(task.set_signal_mask(~uint64_t{0}));  // SIGKILL/SIGSTOP stay unblockable
  return s;
}

// Resumes until the int3 after `code` (at `stop_pc`) traps. Signals that
// cannot be blocked (SIGSTOP) are swallowed and returned for re-sending.
Status run_until_int3(Task& task, uint64_t stop_pc, std::vector<int>& deferred, bool& saw_interrupt) {
  TRY(task.cont());
  for (;;) {
    WaitResult w = TRY(task.wait());
    switch (w.kind) {
      case StopKind::Exited:
      case StopKind::Killed:
        return Error::msg("tracee died while running injected code");
      case StopKind::SignalDelivery: {
        if (w.signo == SIGTRAP) {
          auto r = TRY(task.regs());
          if (r.rip == stop_pc) return ok_status();
          char buf[96];
          snprintf(buf, sizeof buf, "injected code trapped at 0x%llx, expected 0x%llx", (unsigned long long)r.rip,
                   (unsigned long long)stop_pc);
          return Error::msg(buf);
        }
        if (w.signo == SIGSEGV || w.signo == SIGBUS || w.signo == SIGILL || w.signo == SIGFPE)
          return Error::msg(std::string("injected code faulted: ") + strsignal(w.signo));
        deferred.push_back(w.signo);
        TRY(task.cont());
        break;
      }
      default:  // seccomp stop of a patched-pc syscall, group-stop: let it go on
        // A PTRACE_INTERRUPT the caller issued before us traps here; it is re-armed afterwards.
        if (w.kind == StopKind::PtraceEvent && w.event == PTRACE_EVENT_STOP) saw_interrupt = true;
        TRY(task.cont());
        break;
    }
  }
}

// Puts the task back in the kind of stop `saved` describes, with its
// registers and mask. `code` is an address holding `syscall; int3`.
Status return_to_stop(Task& task, const SavedStop& saved, uint64_t code, bool& saw_interrupt) {
  switch (saved.kind) {
    case ReturnTo::EventStop: {
      // Queue a ptrace trap, then resume from the int3's signal stop: the
      // tracee takes the trap inside the kernel before running user code.
      TRY(task.set_regs(saved.regs));
      TRY(task.interrupt());
      TRY(task.cont());
      WaitResult w = TRY(task.wait());
      if (w.kind != StopKind::PtraceEvent || w.event != PTRACE_EVENT_STOP)
        return Error::msg("injection: expected an event stop when returning, got status " + std::to_string(w.raw_status));
      break;
    }
    case ReturnTo::SeccompStop:
    case ReturnTo::SyscallEntry: {
      // Re-issue the interrupted syscall instruction so the same entry stop happens again.
      user_regs_struct r = saved.regs;
      r.rip -= 2;
      r.rax = saved.regs.orig_rax;
      TRY(task.set_regs(r));
      if (saved.kind == ReturnTo::SeccompStop) {
        TRY(task.cont());
      } else {
        TRY(task.syscall());
      }
      WaitResult w = TRY(task.wait());
      while (w.kind == StopKind::PtraceEvent && w.event == PTRACE_EVENT_STOP) {  // a caller's pending interrupt
        saw_interrupt = true;
        if (saved.kind == ReturnTo::SeccompStop) {
          TRY(task.cont());
        } else {
          TRY(task.syscall());
        }
        w = TRY(task.wait());
      }
      bool ok = saved.kind == ReturnTo::SeccompStop ? (w.kind == StopKind::PtraceEvent && w.event == PTRACE_EVENT_SECCOMP)
                                                    : w.kind == StopKind::SyscallStop;
      if (!ok) return Error::msg("injection: the original syscall did not stop again (status " + std::to_string(w.raw_status) + ")");
      TRY(task.set_regs(saved.regs));
      break;
    }
    case ReturnTo::SyscallExit: {
      // Run a harmless getpid through entry and exit stops, then put the registers back.
      user_regs_struct r = saved.regs;
      r.rip = code;
      r.rax = SYS_getpid;
      r.orig_rax = static_cast<unsigned long long>(-1);
      TRY(task.set_regs(r));
      for (int stops = 0; stops < 4; ++stops) {
        TRY(task.syscall());
        WaitResult w = TRY(task.wait());
        if (w.kind == StopKind::SyscallStop) {
          auto info = TRY(task.syscall_info());
          if (info.op == PTRACE_SYSCALL_INFO_EXIT) {
            TRY(task.set_regs(saved.regs));
            goto done;
          }
        } else if (!w.stopped()) {
          return Error::msg("tracee died while returning to its syscall-exit stop");
        } else if (w.kind == StopKind::PtraceEvent && w.event == PTRACE_EVENT_STOP) {
          saw_interrupt = true;
        }
      }
      return Error::msg("injection: no syscall-exit stop when returning");
    done:
      break;
    }
    case ReturnTo::SignalDelivery:
      TRY(task.set_regs(saved.regs));
      TRY(task.set_siginfo(saved.info));
      {
        WaitResult w = task.last_stop();
        w.signo = saved.info.si_signo;
        task.set_last_stop(w);
      }
      break;
  }
  TRY(task.set_signal_mask(saved.signal_mask));
  return ok_status();
}

// The core: run code at `code_addr` (ending in int3 at stop_pc-1) with regs
// from `setup`, return the registers at the trap, restore everything.
Result<user_regs_struct> run_injected(Task& task, uint64_t code_addr, uint64_t stop_pc, uint64_t return_code,
                                      const std::function<void(user_regs_struct&)>& setup) {
  SavedStop saved = TRY(save_stop(task));
  user_regs_struct r = saved.regs;
  setup(r);
  r.rip = code_addr;
  // -1: skip the syscall of an entry stop, and no restart fix-up of an
  // interrupted one while our code runs.
  r.orig_rax = static_cast<unsigned long long>(-1);
  std::vector<int> deferred;
  bool saw_interrupt = false;
  Status run = task.set_regs(r);
  if (run.ok()) run = run_until_int3(task, stop_pc, deferred, saw_interrupt);
  if (!run.ok()) {
    if (task.last_stop().stopped()) (void)task.set_signal_mask(saved.signal_mask);
    return run.take_error();
  }
  user_regs_struct result = TRY(task.regs());
  TRY(return_to_stop(task, saved, return_code, saw_interrupt));
  for (int sig : deferred) syscall(SYS_tgkill, task.tgid(), task.raw_tid(), sig);
  // The caller's PTRACE_INTERRUPT that we consumed traps again at its next resume.
  if (saw_interrupt && saved.kind != ReturnTo::EventStop) TRY(task.interrupt());
  return result;
}

void set_syscall_args(user_regs_struct& r, long nr, const std::array<uint64_t, 6>& a) {
  r.rax = static_cast<unsigned long long>(nr);
  r.rdi = a[0];
  r.rsi = a[1];
  r.rdx = a[2];
  r.r10 = a[3];
  r.r8 = a[4];
  r.r9 = a[5];
}

// The first syscall of an address space: `syscall; int3` over the bytes at
// the current pc, restored afterwards.
Result<int64_t> inject_syscall_at_pc(Task& task, long nr, std::array<uint64_t, 6> args) {
  if (!task.last_stop().stopped()) return Error::msg("cannot inject into a task that is not stopped");
  auto regs = TRY(task.regs());
  uint64_t at = regs.rip;
  uint8_t original[sizeof kSyscallInt3];
  TRY(task.read_memory(RemoteAddr(at), original));
  TRY(task.write_memory(RemoteAddr(at), kSyscallInt3));
  auto result = run_injected(task, at, at + 3, at, [&](user_regs_struct& r) { set_syscall_args(r, nr, args); });
  Status restored = task.write_memory(RemoteAddr(at), original);
  if (!result.ok()) return result.take_error();
  TRY(restored);
  return static_cast<int64_t>(result->rax);
}

}  // namespace

Result<user_regs_struct> run_injected_stub(Task& task, const InjectedStub& stub,
                                           const std::function<void(user_regs_struct&)>& setup) {
  if (!task.has_injection_page()) return Error::msg("injection page not installed");
  uint64_t code = kInjectPageAddr + stub.offset;
  return run_injected(task, code, code + stub.code.size(), kInjectPageAddr + kInjectSyscallOffset, setup);
}

Result<int64_t> inject_syscall(Task& task, long nr, std::array<uint64_t, 6> args) {
  if (!task.last_stop().stopped()) return Error::msg("cannot inject into a task that is not stopped");
  if (!task.has_injection_page()) return inject_syscall_at_pc(task, nr, args);
  uint64_t code = kInjectPageAddr + kInjectSyscallOffset;
  auto r = TRY(run_injected(task, code, code + 3, code, [&](user_regs_struct& regs) { set_syscall_args(regs, nr, args); }));
  return static_cast<int64_t>(r.rax);
}

Result<std::vector<int64_t>> inject_syscalls(Task& task, std::span<const InjectedCall> calls, uint64_t table) {
  if (calls.empty()) return std::vector<int64_t>();
  if (!task.has_injection_page()) return Error::msg("injection page not installed");
  std::vector<uint64_t> words(calls.size() * kInjectedCallBytes / 8, 0);
  for (size_t i = 0; i < calls.size(); i++) {
    uint64_t* e = &words[i * kInjectedCallBytes / 8];
    e[0] = static_cast<uint64_t>(calls[i].nr);
    for (size_t a = 0; a < 6; a++) e[1 + a] = calls[i].args[a];
  }
  const std::span<const uint8_t> bytes(reinterpret_cast<const uint8_t*>(words.data()), words.size() * 8);
  TRY(task.write_memory(RemoteAddr(table), bytes));
  const user_regs_struct at_end = TRY(run_injected_stub(task, syscall_batch_stub(), [&](user_regs_struct& r) {
    r.rbx = table;
    r.r12 = calls.size();
  }));
  // rbx stops at the entry that failed, or one past the last.
  const uint64_t ran_up_to = (at_end.rbx - table) / kInjectedCallBytes;
  const size_t ran = std::min<size_t>(calls.size(), at_end.r12 == 0 ? calls.size() : ran_up_to + 1);
  std::vector<uint64_t> back(ran * kInjectedCallBytes / 8);
  TRY(task.read_memory(RemoteAddr(table), std::span<uint8_t>(reinterpret_cast<uint8_t*>(back.data()), back.size() * 8)));
  std::vector<int64_t> results(ran);
  for (size_t i = 0; i < ran; i++) results[i] = static_cast<int64_t>(back[i * kInjectedCallBytes / 8 + 7]);
  return results;
}

Status install_injection_page(Task& task) {
  if (task.has_injection_page()) return ok_status();
  // Both syscalls run from the patched pc: the page is not executable until the second.
  int64_t addr = TRY(inject_syscall_at_pc(task, SYS_mmap,
                                          {kInjectPageAddr, kInjectAreaSize, PROT_READ | PROT_WRITE,
                                           MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, static_cast<uint64_t>(-1), 0}));
  if (addr == -EEXIST) {
    // Installed earlier through another Task object of this address space?
    uint8_t head[sizeof kSyscallInt3];
    if (task.read_memory(RemoteAddr(kInjectPageAddr), head).ok() && std::memcmp(head, kSyscallInt3, sizeof head) == 0) {
      task.set_has_injection_page(true);
      return ok_status();
    }
    return Error::msg("injection page: address 0x70000000 is already taken in the tracee");
  }
  if (addr < 0 && addr > -4096) return Error::from_errno("injected mmap of the injection page at 0x70000000", static_cast<int>(-addr));
  if (static_cast<uint64_t>(addr) != kInjectPageAddr) return Error::msg("injection page: mmap returned a different address");
  std::vector<uint8_t> page(4096, 0xcc);  // int3 everywhere a stub does not sit
  std::memcpy(page.data() + kInjectSyscallOffset, kSyscallInt3, sizeof kSyscallInt3);
  for (InjectedStub stub : {sigaction_dump_stub(), page_copy_stub(), syscall_batch_stub()})
    std::memcpy(page.data() + stub.offset, stub.code.data(), stub.code.size());
  TRY(task.write_memory(RemoteAddr(kInjectPageAddr), page));
  int64_t r = TRY(inject_syscall_at_pc(task, SYS_mprotect, {kInjectPageAddr, 4096, PROT_READ | PROT_EXEC, 0, 0, 0}));
  if (r != 0) return Error::from_errno("injected mprotect of the injection page", static_cast<int>(-r));
  // The syscall buffer's stub, in record and replay alike (syscallbuf_stub.h).
  std::vector<uint8_t> stub(4096, 0xcc);
  std::memcpy(stub.data(), sysbuf_stub_code().data(), sysbuf_stub_code().size());
  TRY(task.write_memory(RemoteAddr(kSysbufStubAddr), stub));
  r = TRY(inject_syscall_at_pc(task, SYS_mprotect, {kSysbufStubAddr, 4096, PROT_READ | PROT_EXEC, 0, 0, 0}));
  if (r != 0) return Error::from_errno("injected mprotect of the syscall buffer stub", static_cast<int>(-r));
  task.set_has_injection_page(true);
  return ok_status();
}

}  // namespace slsdbg::process
