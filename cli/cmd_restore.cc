// `slsdbg restore REC --at K [--repeat N]`: resume a live, real process from
// checkpoint K and let it run natively to its end.

#include <signal.h>
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "cli/command.h"
#include "cli/member_option.h"
#include "cli/options.h"
#include "cli/recording_dir.h"
#include "cli/restore_children.h"
#include "common/log.h"
#include "common/signal_name.h"
#include "engine/restore/lazy_fill.h"
#include "engine/restore/restore.h"
#include "engine/restore/restore_compare.h"
#include "process/detach.h"
#include "store/recording.h"

namespace slsdbg::cli {
namespace {

const char kUsage[] =
    "usage: slsdbg restore REC [-p PID] --at K [--repeat N] [--verify] [--lazy]\n\n"
    "Resumes a live process from checkpoint K of recording REC and lets it run\n"
    "natively (not traced) to its end. Its stdin, stdout and stderr are slsdbg's;\n"
    "slsdbg exits with its exit status (128+N when killed by signal N).\n\n"
    "  -p PID       the recorded process PID (default: the one record started)\n"
    "  --at K       the checkpoint (see `slsdbg info REC`)\n"
    "  --repeat N   run N times from the same image and report each exit status,\n"
    "               to surface nondeterministic failures; exits with the first\n"
    "               nonzero status, or 0 when every run exited 0\n"
    "  --verify     before letting it run, compare the restored registers, memory\n"
    "               map, every page and the descriptors it made with the\n"
    "               checkpoint; a difference is an error\n"
    "  --lazy       let the process run before its memory is written: private\n"
    "               anonymous memory is filled on first touch (userfaultfd) and in\n"
    "               the background\n\n"
    "Restored: memory map and contents, brk, registers (incl. XSAVE, fs/gs base),\n"
    "signal handlers, mask and pending signals, cwd, files of the fd table at their\n"
    "offsets, pipes and AF_UNIX socketpairs held by the process with the bytes\n"
    "and datagrams waiting in them, eventfds with their count, timerfds with their\n"
    "clock and times, signalfds, and epoll instances with their registrations;\n"
    "a pipe end whose other end the process did not hold comes back with that end\n"
    "closed (warned: reads see end of file, writes EPIPE). The pid and the\n"
    "threads' tids are the recorded ones where the kernel allows (root, the ids\n"
    "free), else new ones (the pid's with a warning). Threads of a checkpoint\n"
    "taken under `record --threads` are created again with their registers, TLS,\n"
    "mask and pending signals. Not restored, each reported as a one-line warning:\n"
    "other sockets, other anonymous-inode objects (inotify, pidfd, io_uring), and\n"
    "the child processes it had started and not reaped (only this process is\n"
    "restored). Not supported yet: rlimits and credentials.\n";

// Exit status in shell convention: code, or 128+signal.
int shell_status(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 1;
}

std::string describe_status(int status) {
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return "killed by " + signal_name(WTERMSIG(status));
  return "ended oddly";
}

// One restore + native run; returns the raw wait status.
enum class Verify { No, Yes };

Result<int> run_once(const store::RecordingReader& reader, CheckpointId k, bool print_warnings, Verify verify,
                     restore::FillMode fill) {
  restore::RestoreReport report;
  restore::RestoreOptions options;
  restore::LazyFiller filler;  // outlives the process: declared before the task
  options.report = &report;
  options.fill = fill;
  options.lazy = &filler;
  std::vector<restore::RestoredThread> threads;  // a multithreaded checkpoint's other threads
  options.threads = &threads;
  options.recorded_pid = true;
  process::Task task = TRY(restore::restore_checkpoint(reader, k, options));
  const restore::RestoreTimings& t = report.timings;
  SLSDBG_DEBUG("restore",
               "restored in %.2f ms (spawn %.2f, map %.2f, fill %.2f, state %.2f; %llu bytes written, %llu injected "
               "syscalls)",
               t.total_ns / 1e6, t.spawn_ns / 1e6, t.map_ns / 1e6, t.fill_ns / 1e6, t.state_ns / 1e6,
               (unsigned long long)t.bytes_written, (unsigned long long)t.injected_syscalls);
  if (print_warnings) {
    for (const auto& w : report.warnings) std::fprintf(stderr, "slsdbg: warning: %s\n", w.c_str());
    if (Result<std::vector<pid_t>> kids = children_at(reader, k); kids.ok() && !kids->empty()) {
      std::string pids;
      for (pid_t p : *kids) pids += " " + std::to_string(p);
      std::fprintf(stderr,
                   "slsdbg: warning: child processes not restored (only this process is):%s; its waits for them "
                   "fail with ECHILD\n",
                   pids.c_str());
    }
  }
  if (verify == Verify::Yes) {
    auto same = restore::compare_with_checkpoint(task, reader, k, &threads);
    if (!same.ok()) {
      task.kill_and_reap();
      return same.take_error().context("--verify");
    }
    std::string regs = threads.empty() ? "registers" : "registers of " + std::to_string(threads.size() + 1) + " threads";
    std::fprintf(stderr, "slsdbg: verified: %s, memory map, %llu descriptors and %llu pages equal checkpoint %llu\n",
                 regs.c_str(), (unsigned long long)same->descriptors_compared,
                 (unsigned long long)same->pages_compared, (unsigned long long)k.value);
  }
  pid_t pid = task.tgid();
  // The other threads first: each is traced on its own.
  for (restore::RestoredThread& t : threads)
    if (Status gone = process::detach_thread(Tid(t.task.raw_tid())); !gone.ok()) {
      task.kill_and_reap();
      return gone.take_error();
    }
  TRY(process::detach_thread(Tid(pid)));
  int status = 0;
  for (;;) {
    pid_t r = ::waitpid(pid, &status, 0);
    if (r == pid && (WIFEXITED(status) || WIFSIGNALED(status))) break;
    if (r < 0 && errno != EINTR) return Error::from_errno("waitpid");
  }
  return status;
}

int run(const std::vector<std::string>& args) {
  std::string rec;
  uint64_t at = 0, repeat = 1;
  bool verify_flag = false, lazy = false;
  Options opts("restore");
  opts.recording(rec);
  MemberOption member;
  member.add(opts);
  opts.number("--at", at, "a checkpoint id")->required();
  opts.number("--repeat", repeat, "a positive count");
  opts.flag("--verify", verify_flag);
  opts.flag("--lazy", lazy);
  if (auto done = opts.parse(args)) return *done;
  if (repeat < 1) return opts.usage_error("--repeat needs a positive count");
  const Verify verify = verify_flag ? Verify::Yes : Verify::No;
  const restore::FillMode fill = lazy ? restore::FillMode::Lazy : restore::FillMode::Eager;

  auto dir = member.resolve(rec);  // a path, `latest` or a name under $SLSDBG_DIR; -p: a member
  if (!dir.ok()) return fail("restore: " + dir.error().message);
  rec = *dir;
  auto reader = store::RecordingReader::open(rec);
  if (!reader.ok()) return fail("restore: " + reader.error().message);
  std::map<std::string, int> tally;
  int first_failure = 0;
  for (uint64_t run_no = 1; run_no <= repeat; run_no++) {
    Result<int> st = run_once(**reader, CheckpointId(at), run_no == 1, verify, fill);
    if (!st.ok()) return fail("restore: " + st.error().message);
    int code = shell_status(*st);
    if (code != 0 && first_failure == 0) first_failure = code;
    if (repeat > 1) {
      std::string what = describe_status(*st);
      tally[what]++;
      std::fprintf(stderr, "slsdbg: run %llu/%llu: %s\n", (unsigned long long)run_no, (unsigned long long)repeat,
                   what.c_str());
    } else {
      return code;
    }
  }
  std::string summary;
  for (const auto& [what, n] : tally) summary += (summary.empty() ? "" : ", ") + std::to_string(n) + " x " + what;
  std::fprintf(stderr, "slsdbg: %llu runs from checkpoint %llu: %s%s\n", (unsigned long long)repeat,
               (unsigned long long)at, summary.c_str(),
               tally.size() > 1 ? " (NONDETERMINISTIC)" : "");
  return first_failure;
}

Registrar reg({"restore", "resume a live process from a checkpoint (--repeat N to rerun)", kUsage, run, 60});

}  // namespace
}  // namespace slsdbg::cli

