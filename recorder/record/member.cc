#include "recorder/record/member.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>
#include <iterator>

#include "common/fd.h"
#include "common/log.h"
#include "process/inject.h"
#include "process/proc_identity.h"
#include "process/spawn.h"
#include "process/vdso_patch.h"
#include "store/fs_util.h"
#include "store/members.h"

namespace slsdbg::recorder {

using process::Dispositions;
using process::patch_vdso_time_functions;

namespace {

constexpr uint64_t kJumpToSelf = 0xfeeb;  // `jmp .`, little endian

Result<uint64_t> peek(pid_t pid, uint64_t addr) {
  errno = 0;
  const long w = ptrace(PTRACE_PEEKDATA, pid, reinterpret_cast<void*>(addr), nullptr);
  if (errno != 0) return Error::from_errno("ptrace(PTRACE_PEEKDATA)");
  return static_cast<uint64_t>(w);
}

Status poke(pid_t pid, uint64_t addr, uint64_t word) {
  if (ptrace(PTRACE_POKEDATA, pid, reinterpret_cast<void*>(addr), reinterpret_cast<void*>(word)) != 0)
    return Error::from_errno("ptrace(PTRACE_POKEDATA)");
  return ok_status();
}

// Through /proc/PID/mem, which writes read-only code as ptrace does, for a
// process this thread does not trace.
Status restore_word_in(pid_t pid, uint64_t addr, uint64_t word) {
  UniqueFd mem(::open(("/proc/" + std::to_string(pid) + "/mem").c_str(), O_RDWR | O_CLOEXEC));
  if (!mem.valid()) return Error::from_errno("open(/proc/" + std::to_string(pid) + "/mem)");
  if (pwrite(mem.get(), &word, sizeof word, static_cast<off_t>(addr)) != static_cast<ssize_t>(sizeof word))
    return Error::from_errno("write to /proc/" + std::to_string(pid) + "/mem");
  return ok_status();
}

// NUL-separated /proc/PID/FILE as words.
std::vector<std::string> proc_words(pid_t pid, const char* file) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/" + file, std::ios::binary);
  std::string all((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  std::vector<std::string> out;
  for (size_t at = 0; at < all.size();) {
    const size_t end = all.find('\0', at);
    out.push_back(all.substr(at, end == std::string::npos ? std::string::npos : end - at));
    if (end == std::string::npos) break;
    at = end + 1;
  }
  return out;
}

std::string proc_link(pid_t pid, const char* file) {
  char buf[4096];
  const ssize_t n = readlink(("/proc/" + std::to_string(pid) + "/" + file).c_str(), buf, sizeof buf - 1);
  return n > 0 ? std::string(buf, static_cast<size_t>(n)) : std::string();
}

}  // namespace

const char* origin_name(MemberOrigin origin) {
  switch (origin) {
    case MemberOrigin::Fork: return "fork";
    case MemberOrigin::Vfork: return "vfork";
    case MemberOrigin::Exec: break;
  }
  return "exec";
}

MemberGroup::MemberGroup(const RecordOptions& root, const cpu_set_t& writer_cpus)
    : root_(root), writer_cpus_(writer_cpus), cuts_(root.out_dir, root.interval_ns) {}

MemberGroup::~MemberGroup() { join_all(); }

Status MemberGroup::hand_over(pid_t pid, pid_t parent, MemberOrigin origin, const Dispositions& dispositions) {
  MemberStart s;
  s.pid = pid;
  s.parent = parent;
  s.origin = origin;
  s.dispositions = dispositions;
  s.writer_cpus = writer_cpus_;
  if (ptrace(PTRACE_GETREGS, pid, nullptr, &s.regs) != 0) return Error::from_errno("ptrace(PTRACE_GETREGS) of a new child");
  s.loop_addr = s.regs.rip;
  s.saved_word = TRY(peek(pid, s.loop_addr));
  TRY(poke(pid, s.loop_addr, (s.saved_word & ~0xffffull) | kJumpToSelf));
  if (ptrace(PTRACE_DETACH, pid, nullptr, nullptr) != 0) {
    const Error e = Error::from_errno("ptrace(PTRACE_DETACH) of a new child");
    (void)poke(pid, s.loop_addr, s.saved_word);
    return e;
  }
  SLSDBG_DEBUG("record", "child %d (of %d) handed over to a member recording (%s)", pid, parent,
               origin_name(origin));
  // A vfork child joins the cuts at its exec: until then its parent cannot
  // stop (it waits in the kernel), so no cut could complete anyway.
  if (origin != MemberOrigin::Vfork) cuts_.expect(pid);
  std::lock_guard<std::mutex> lock(mu_);
  threads_.emplace_back([this, s]() { record(s); });
  return ok_status();
}

void MemberGroup::record(MemberStart start) {
  RecordOptions o = root_;
  // A pid the kernel handed out again after an earlier member's exit gets
  // the next free name ("PID.2"): the earlier recording stays as it is.
  o.out_dir = store::unused_member_dir(root_.out_dir, start.pid);
  o.pool_dir = root_.out_dir;  // one copy of libc for the whole tree, linked into each member
  o.argv = proc_words(start.pid, "cmdline");
  if (o.argv.empty()) o.argv = {proc_link(start.pid, "exe")};
  MemberReport report;
  report.pid = start.pid;
  Status dir = store::make_dir(store::members_dir(root_.out_dir));
  if (!dir.ok()) (void)release_parked(start);  // it runs on unrecorded, not parked for ever
  Result<RecordOutcome> r = dir.ok() ? record_member(o, start, this) : Result<RecordOutcome>(dir.take_error());
  cuts_.leave(start.pid);
  if (r.ok()) {
    report.outcome = std::move(*r);
  } else {
    report.error = r.error().message;
    SLSDBG_WARN("record", "child process %d: %s", start.pid, report.error.c_str());
  }
  std::lock_guard<std::mutex> lock(mu_);
  reports_.push_back(std::move(report));
}

void MemberGroup::join_all() {
  for (;;) {
    std::vector<std::thread> batch;
    {
      std::lock_guard<std::mutex> lock(mu_);
      batch.swap(threads_);
    }
    if (batch.empty()) return;
    for (std::thread& t : batch) t.join();
  }
}

std::string MemberGroup::escaped(pid_t pid, pid_t parent) const {
  if (!root_ended_) return "";
  const pid_t sid = getsid(pid);
  if (sid < 0 || sid == getsid(0)) return "";
  const pid_t ppid = process::read_parent_pid(pid);
  if (ppid == parent || ppid < 0) return "";
  return "left the group (a session of its own, its parent " + std::to_string(parent) +
         " gone: a daemon?) and outlived the program; its recording ends at a final checkpoint and it was killed";
}

std::vector<MemberReport> MemberGroup::reports() {
  std::lock_guard<std::mutex> lock(mu_);
  return reports_;
}

Result<process::Task> adopt_member(const MemberStart& s) {
  const pid_t pid = s.pid;
  if (ptrace(PTRACE_SEIZE, pid, nullptr, reinterpret_cast<void*>(process::kTraceOptions)) != 0)
    return Error::from_errno("ptrace(PTRACE_SEIZE) of child " + std::to_string(pid));
  if (ptrace(PTRACE_INTERRUPT, pid, nullptr, nullptr) != 0)
    return Error::from_errno("ptrace(PTRACE_INTERRUPT) of child " + std::to_string(pid));
  // A signal that came while it was parked is taken from the stop it
  // reports and sent again once the child is itself again.
  std::vector<int> signals;
  for (;;) {
    int status = 0;
    if (waitpid(pid, &status, __WALL) < 0) {
      if (errno == EINTR) continue;
      return Error::from_errno("waitpid(child " + std::to_string(pid) + ")");
    }
    if (WIFEXITED(status) || WIFSIGNALED(status)) {
      // A vfork child's `jmp .` sits in its parent's code too, where the
      // parent returns once the child is gone.
      if (s.origin == MemberOrigin::Vfork) (void)restore_word_in(s.parent, s.loop_addr, s.saved_word);
      return Error::msg("child " + std::to_string(pid) + " ended while handed over");
    }
    if (!WIFSTOPPED(status)) continue;
    if ((status >> 16) == PTRACE_EVENT_STOP) break;
    if (WSTOPSIG(status) != SIGTRAP) signals.push_back(WSTOPSIG(status));
    if (ptrace(PTRACE_CONT, pid, nullptr, nullptr) != 0) return Error::from_errno("ptrace(PTRACE_CONT)");
    (void)ptrace(PTRACE_INTERRUPT, pid, nullptr, nullptr);
  }
  TRY(poke(pid, s.loop_addr, s.saved_word));
  if (ptrace(PTRACE_SETREGS, pid, nullptr, &s.regs) != 0) return Error::from_errno("ptrace(PTRACE_SETREGS)");
  for (int sig : signals) syscall(SYS_tgkill, pid, pid, sig);
  return process::Task(Tid(pid), pid);
}

Status release_parked(const MemberStart& s) {
  process::Task task = TRY(adopt_member(s));
  if (ptrace(PTRACE_DETACH, s.pid, nullptr, nullptr) != 0)
    return Error::from_errno("ptrace(PTRACE_DETACH) of child " + std::to_string(s.pid));
  return ok_status();
}

Status prepare_member_image(process::Task& task, MemberOrigin origin, process::VdsoRoute vdso) {
  if (origin == MemberOrigin::Vfork) {
    task.set_has_injection_page(true);  // the parent's: the memory is one
  } else if (origin == MemberOrigin::Fork) {
    task.set_has_injection_page(true);  // a private copy of the parent's
    // The staging area is a MAP_SHARED memfd: the parent's capture copies
    // through it. This capture maps its own.
    const int64_t r = TRY(process::inject_syscall(task, SYS_munmap, {process::kStagingAddr, process::kStagingSize, 0, 0, 0, 0}));
    if (r != 0) return Error::from_errno("munmap of the inherited staging area", static_cast<int>(-r));
  } else {
    TRY_CTX(process::install_injection_page(task), "installing the injection page after execve");
    TRY(patch_vdso_time_functions(task.tid().value, vdso));
  }
  const int64_t r = TRY(process::inject_syscall(task, SYS_prctl, {PR_SET_TSC, PR_TSC_SIGSEGV, 0, 0, 0, 0}));
  if (r != 0) return Error::from_errno("prctl(PR_SET_TSC) in the child", static_cast<int>(-r));
  return ok_status();
}

store::RecordingMeta member_meta(pid_t pid, pid_t parent, MemberOrigin origin) {
  store::RecordingMeta meta;
  meta.program = proc_link(pid, "exe");
  meta.args = proc_words(pid, "cmdline");
  meta.env = proc_words(pid, "environ");
  meta.cwd = proc_link(pid, "cwd");
  meta.pid = pid;
  meta.parent_pid = parent;
  meta.origin = origin_name(origin);
  return meta;
}

}  // namespace slsdbg::recorder
