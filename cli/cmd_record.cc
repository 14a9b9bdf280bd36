// slsdbg record: run a program under the recorder.
#include <signal.h>
#include <sys/resource.h>

#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "cli/command.h"
#include "cli/options.h"
#include "cli/recording_dir.h"
#include "engine/dump/crash_report.h"
#include "recorder/record/record_session.h"
#include "store/recording.h"

namespace slsdbg::cli {
namespace {

constexpr const char* kUsage =
    "usage: slsdbg record [-o DIR] [--interval MS] [--max-interval MS] [--verify]\n"
    "                     [--tracker auto|uffd|hash]\n"
    "                     [--copy deferred|in-stop] [--durable] [--[no-]syscall-buffer]\n"
    "                     [--threads] -- PROGRAM [ARGS...]\n"
    "\n"
    "Runs PROGRAM under the recorder: a checkpoint of the whole process every\n"
    "--interval milliseconds (default 10) and at exit, and a log of every\n"
    "nondeterministic input in between (syscall results and the bytes they\n"
    "wrote, rdtsc values, signal deliveries). PROGRAM's stdin, stdout, stderr\n"
    "and exit status pass through unchanged.\n"
    "\n"
    "  -o, --output DIR  where to write the recording (default: $SLSDBG_DIR or\n"
    "                  ~/.local/share/slsdbg, as PROGNAME-N, with a `latest` link)\n"
    "  --interval MS   checkpoint period in milliseconds (1..60000)\n"
    "  --max-interval MS  for a program that rewrites the same memory all the\n"
    "                  time (a compressor), the period doubles while checkpoints\n"
    "                  cost much, up to MS (default 250 with the default\n"
    "                  --interval; with --interval given, that interval: no\n"
    "                  stretching); `info` reports the longest period used\n"
    "  --verify        after each checkpoint, compare the stored memory image with\n"
    "                  the live process (slow; for tests and doubters)\n"
    "  --tracker T     dirty-page tracking: auto (default), uffd, hash\n"
    "  --copy C        when a tick checkpoint copies its dirty pages: deferred\n"
    "                  (default: cold pages are copied on another CPU after the\n"
    "                  program resumed, and the checkpoint is dropped if one was\n"
    "                  written first) or in-stop (all while the program waits)\n"
    "  --durable       fsync the recording before exiting, so that a machine crash\n"
    "                  (power loss) right after cannot lose its last second. Without\n"
    "                  it the recording is synced once a second while it runs and\n"
    "                  the kernel writes the rest back; a killed recorder or program\n"
    "                  loses nothing either way. Costs ~10 ms.\n"
    "  --no-syscall-buffer  every syscall stops the program (slower). By default\n"
    "                  (the syscall buffer; SLSDBG_SYSCALL_BUFFER=off turns it off,\n"
    "                  --syscall-buffer back on) reads, writes, lseek,\n"
    "                  fstat and close on regular files of a local filesystem,\n"
    "                  /dev/null and /dev/zero, getdents64 on directories, stat\n"
    "                  by path, non-blocking openat and zero-timeout poll run\n"
    "                  inside the program without a stop each (glibc's call\n"
    "                  sites are patched to a stub, all at the first one, for one\n"
    "                  checkpoint), logged at the next stop; replay serves them\n"
    "                  from the log. Everything else, blocking calls included,\n"
    "                  stays traced. Off once the program starts a thread; each\n"
    "                  forked child drains the buffer it inherited.\n"
    "  --threads       accepted for older scripts: threads are recorded anyway.\n"
    "\n"
    "Ctrl-C, SIGTERM or SIGHUP end the recording with a final checkpoint (exit\n"
    "128+signo); a second one kills the recorder.\n"
    "\n"
    "The recording keeps a copy of each file the program maps privately (the\n"
    "program, its libraries; REC/files, reflinked where the filesystem can), so\n"
    "it replays after they are rebuilt or upgraded; SLSDBG_KEEP_FILES=off stores\n"
    "their mapped pages instead. Each copy is made once per version of a file in\n"
    "~/.cache/slsdbg/files (or $SLSDBG_CACHE_DIR/files; =off: none) and\n"
    "hard-linked into the recording when both are on one filesystem.\n"
    "\n"
    "execve is followed: the recording goes on in the new program. Child\n"
    "processes (fork, a shell's subshells and pipelines, make's recipes) are\n"
    "recorded in the same recording, each with its own checkpoints and log\n"
    "(REC/members/PID): a forked child from its fork, a vfork/posix_spawn child\n"
    "from its execve. `slsdbg info` shows the tree; replay, dump, restore and\n"
    "backtrace take -p PID. Each member replays on its own (what the others did\n"
    "reaches it as logged input: pipe reads, wait status, SIGCHLD); there is no\n"
    "consistent cut of the whole tree yet. A forked child takes over the syscall\n"
    "buffer it inherited. The recorder waits for every child to exit before it does,\n"
    "except one that left the group (setsid, its parent gone: a daemon) after\n"
    "the program ended: its recording ends there and it is killed.\n"
    "\n"
    "Threads (pthreads, node, zstd ...) are recorded: one thread runs at a time,\n"
    "switching where one blocks (futex, read, sleep ...) and at each tick; every\n"
    "checkpoint holds every thread, so `slsdbg dump` cores and `backtrace` show\n"
    "them all. replay --check, restore and GDB/LLDB (breakpoints in any thread,\n"
    "reverse-continue; no watchpoints yet) take such a recording.\n"
    "\n"
    "Processes that share MAP_SHARED memory (a fork of a process that has some,\n"
    "Python's multiprocessing) run one at a time: each gives its turn up where it\n"
    "waits (futex, read, wait, sleep ...) and after each checkpoint, and its log\n"
    "gets what the others wrote meanwhile. Not covered: a shared file mapping\n"
    "that a process outside the recording writes.\n"
    "\n"
    "Not supported yet: execve while a second thread lives, the main thread\n"
    "ending before the others (recording stops with an error; what was recorded\n"
    "stays readable), attaching to a running process.\n";

// The bound of the adaptive interval when neither --interval nor
// --max-interval is given: xz records at <= 1.3x native with it
// (docs/performance.md `## real programs`), and reverse execution replays
// at most one such segment per step back.
constexpr uint64_t kDefaultMaxIntervalMs = 250;

// On: syscall-heavy programs record several times faster
// (docs/performance.md `## real programs`).
constexpr bool kSyscallBufferDefault = true;

// "slsdbg: the program was killed by SIGSEGV (...) at 0x... in f at a.c:12".
void print_crash(const std::string& dir) {
  auto reader = store::RecordingReader::open(dir);
  if (!reader.ok()) return;
  auto what = dump::describe_crash(**reader);
  if (!what.ok()) std::fprintf(stderr, "slsdbg: %s\n", what.error().message.c_str());
  else if (*what) std::fprintf(stderr, "slsdbg: the program was killed by %s\n", (*what)->c_str());
}

// The syscall buffer's default, which SLSDBG_SYSCALL_BUFFER=on|off sets
// (the flags override it); nullopt: another value.
std::optional<bool> syscall_buffer_env() {
  const char* v = std::getenv("SLSDBG_SYSCALL_BUFFER");
  if (!v || !*v) return kSyscallBufferDefault;
  const std::string s(v);
  if (s == "on") return true;
  if (s == "off") return false;
  return std::nullopt;
}

int exit_like(int signo) {
  // Die of the same signal so the caller sees what a native run shows.
  struct rlimit no_core = {0, 0};
  setrlimit(RLIMIT_CORE, &no_core);
  signal(signo, SIG_DFL);
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, signo);
  sigprocmask(SIG_UNBLOCK, &set, nullptr);
  raise(signo);
  return 128 + signo;
}

int run_record(const std::vector<std::string>& args) {
  recorder::RecordOptions opts;
  std::string out_dir, copy = "deferred", tracker = "auto";
  uint64_t interval_ms = 10, max_interval_ms = 0;
  bool verify = false, durable = false, syscall_buffer = false, no_syscall_buffer = false, threads = false;
  Options options("record", Rest::Program);
  options.text("-o,--output", out_dir, "a directory");
  CLI::Option* interval = options.number("--interval", interval_ms, "milliseconds");
  CLI::Option* max_interval = options.number("--max-interval", max_interval_ms, "milliseconds");
  options.flag("--verify", verify);
  options.flag("--durable", durable);
  options.flag("--threads", threads);
  options.text("--tracker", tracker, "auto, uffd or hash");
  options.text("--copy", copy, "deferred or in-stop");
  options.flag("--syscall-buffer", syscall_buffer);
  options.flag("--no-syscall-buffer", no_syscall_buffer);
  if (auto done = options.parse(args)) return *done;
  if (syscall_buffer && no_syscall_buffer)
    return options.usage_error("--syscall-buffer and --no-syscall-buffer contradict each other");
  const std::optional<bool> buffer_env = syscall_buffer_env();
  if (!buffer_env) return options.usage_error("SLSDBG_SYSCALL_BUFFER must be 'on' or 'off'");
  if (interval->count()) {
    if (interval_ms < 1 || interval_ms > 60000)
      return options.usage_error("--interval needs a number of milliseconds between 1 and 60000");
    opts.interval_ns = interval_ms * 1'000'000;
  }
  if (max_interval->count()) {
    if (max_interval_ms < interval_ms || max_interval_ms > 60000)
      return options.usage_error("--max-interval needs a number of milliseconds between --interval (" +
                                 std::to_string(interval_ms) + ") and 60000");
    opts.max_interval_ns = max_interval_ms * 1'000'000;
  } else if (!interval->count()) {
    opts.max_interval_ns = kDefaultMaxIntervalMs * 1'000'000;
  }
  if (copy != "deferred" && copy != "in-stop") return options.usage_error("--copy needs 'deferred' or 'in-stop'");
  opts.defer_copy = copy == "deferred";
  opts.durable = durable;
  opts.syscall_buffer = syscall_buffer || (!no_syscall_buffer && *buffer_env);
  if (verify) opts.verify = recorder::VerifyMode::EveryCheckpoint;
  opts.threads = true;  // by default: --threads changes nothing now
  (void)threads;
  if (tracker == "auto") opts.tracker = recorder::TrackerChoice::Auto;
  else if (tracker == "uffd") opts.tracker = recorder::TrackerChoice::UffdWp;
  else if (tracker == "hash") opts.tracker = recorder::TrackerChoice::PageHash;
  else return options.usage_error("unknown tracker '" + tracker + "' (auto, uffd or hash)");
  opts.argv = options.rest();
  if (opts.argv.empty()) return options.usage_error("no program given: slsdbg record [OPTIONS] -- PROGRAM [ARGS...]");

  const bool default_location = out_dir.empty();
  if (default_location) {
    auto dir = recorder::next_recording_dir(opts.argv[0]);
    if (!dir.ok()) return fail("record: " + dir.error().message);
    out_dir = *dir;
  }
  opts.out_dir = out_dir;

  auto outcome = recorder::record_program(opts);
  if (!outcome.ok()) return fail("record: " + outcome.error().message);
  if (default_location) (void)recorder::update_latest_link(out_dir);
  std::fprintf(stderr, "slsdbg: recorded %llu checkpoints, %llu events (tracker %s) in %s\n",
               static_cast<unsigned long long>(outcome->checkpoints),
               static_cast<unsigned long long>(outcome->events), outcome->tracker.c_str(), out_dir.c_str());
  if (outcome->threads > 1)
    std::fprintf(stderr, "slsdbg: the program ran %llu threads; replay --check, restore, GDB (watchpoints too) and bisect take them\n",
                 static_cast<unsigned long long>(outcome->threads));
  if (outcome->thread_overlaps > 0)
    std::fprintf(stderr, "slsdbg: warning: two threads ran program code at once %llu times; replay may diverge\n",
                 static_cast<unsigned long long>(outcome->thread_overlaps));
  if (!outcome->members.empty())
    std::fprintf(stderr, "slsdbg: recorded %zu child process%s too (slsdbg info shows the tree; replay -p PID), %llu group cuts%s\n",
                 outcome->members.size(), outcome->members.size() == 1 ? "" : "es",
                 static_cast<unsigned long long>(outcome->group_cuts),
                 outcome->abandoned_cuts ? (" (" + std::to_string(outcome->abandoned_cuts) + " abandoned: a process did not stop in time)").c_str() : "");
  for (const std::string& e : outcome->member_errors) std::fprintf(stderr, "slsdbg: %s\n", e.c_str());
  if (outcome->shared_turns > 0)
    std::fprintf(stderr, "slsdbg: processes that share memory ran one at a time: %llu turns passed between them\n",
                 static_cast<unsigned long long>(outcome->shared_turns));
  if (outcome->members.empty() && !outcome->children.empty())
    std::fprintf(stderr, "slsdbg: the program started %zu child process%s; %s not recorded\n",
                 outcome->children.size(), outcome->children.size() == 1 ? "" : "es",
                 outcome->children.size() == 1 ? "it was" : "they were");
  if (opts.syscall_buffer)
    std::fprintf(stderr, "slsdbg: syscall buffer: %llu syscalls buffered, %llu glibc sites patched\n",
                 static_cast<unsigned long long>(outcome->buffered_syscalls),
                 static_cast<unsigned long long>(outcome->patched_sites));
  if (outcome->torn_checkpoints > 0)
    std::fprintf(stderr, "slsdbg: %llu of %llu deferred tick checkpoints dropped (a page was written before its copy)\n",
                 static_cast<unsigned long long>(outcome->torn_checkpoints),
                 static_cast<unsigned long long>(outcome->deferred_checkpoints));
  if (outcome->stretched_ticks > 0)
    std::fprintf(stderr, "slsdbg: interval stretched up to %.0f ms for %llu ticks (the program rewrites its memory)\n",
                 outcome->longest_interval_ns / 1e6, static_cast<unsigned long long>(outcome->stretched_ticks));
  if (outcome->backed_off_ticks > 0)
    std::fprintf(stderr, "slsdbg: %llu tick checkpoints copied in the stop after torn deferrals (back-off)\n",
                 static_cast<unsigned long long>(outcome->backed_off_ticks));
  switch (outcome->end) {
    case recorder::RecordOutcome::End::Exited:
      return outcome->exit_code;
    case recorder::RecordOutcome::End::Killed:
      print_crash(out_dir);
      return exit_like(outcome->signo);
    case recorder::RecordOutcome::End::Stopped:
      std::fprintf(stderr, "slsdbg: recording %s; history ends at its final checkpoint\n", outcome->refusal.c_str());
      return 128 + outcome->signo;
    case recorder::RecordOutcome::End::Refused:
      return fail("record: " + outcome->refusal + "; the recording up to that point is in " + out_dir);
  }
  return 1;
}

Registrar reg({"record", "run a program and record it (checkpoints every 10 ms + input log)", kUsage, run_record,
               10});

}  // namespace
}  // namespace slsdbg::cli
