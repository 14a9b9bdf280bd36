// `slsdbg replay REC --check`: replay a whole recording from checkpoint 0 and
// compare the replayed state with every recorded checkpoint.
// `slsdbg replay REC [-- GDB-ARGS]`: GDB on the recording; `--server ADDR`: serve it.
#ifdef SLSDBG_HAVE_REPLAY

#include <unistd.h>

#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "cli/command.h"
#include "engine/replay/replay_check.h"
#include "store/recording.h"
#ifdef SLSDBG_HAVE_GDBSERVER_REPLAY
#include "gdbserver/replay/replay_frontend.h"
#endif

namespace slsdbg::cli {
namespace {

const char kUsage[] =
    "usage: slsdbg replay REC [--goto MOMENT|--at K] [-- GDB-ARGS...]\n"
    "       slsdbg replay REC --server [HOST:]PORT|unix:PATH [--allow-remote] [--goto MOMENT|--at K]\n"
    "       slsdbg replay REC --check\n\n"
    "EXPERIMENTAL. Replays recording REC deterministically from its event log.\n\n"
    "Without --check or --server: starts gdb connected to the recording at its\n"
    "start (or at --goto/--at), with the recorded program's symbols loaded, over\n"
    "a Unix socket in a private 0700 directory. Arguments after -- go to gdb\n"
    "(e.g. -- -batch -x script.gdb). GDB's reverse-continue, reverse-step,\n"
    "reverse-next, reverse-finish, reverse-stepi and watchpoints work across\n"
    "checkpoints; `monitor help` lists checkpoints, goto, when, bookmarks, dump.\n"
    "Registers and memory of a replay cannot be written.\n\n"
    "  --server ADDR    serve one debugger (gdb `target remote ADDR`, lldb\n"
    "                   `gdb-remote ADDR`) instead; PORT alone binds 127.0.0.1,\n"
    "                   port 0 picks a free one; prints the address to use.\n"
    "  --allow-remote   let --server listen on a non-loopback address (anyone who\n"
    "                   can connect reads the recorded memory)\n"
    "  --goto WHERE     start at WHERE: a moment K:E:0xPC:N, a checkpoint K, or a\n"
    "                   bookmark name; --at K is the same for a checkpoint\n\n"
    "Known to report false divergences on some recordings: the XSAVE area\n"
    "glibc's lazy-binding trampoline leaves on the stack can differ in one\n"
    "CPU-owned bit (XINUSE), and a checkpoint's breakpoint is sometimes missed\n"
    "(engine/replay/README.md).\n\n"
    "  --check   replay the whole recording from checkpoint 0; at every checkpoint\n"
    "            reached by execution compare the registers and the pages the\n"
    "            checkpoint lists as dirty with the recorded ones. Prints OK with\n"
    "            how many checkpoint boundaries were crossed by execution and how\n"
    "            many by restore (forced checkpoints after unmodelled syscalls),\n"
    "            exit 0; or the first divergence (segment, event, expected vs\n"
    "            actual, pc), exit 1.\n\n"
    "How: syscalls are checked against the log (number and all six argument\n"
    "registers) and emulated from it; address-space, signal-state, fs-base and\n"
    "read-only open/close syscalls run for real and are checked; rdtsc returns\n"
    "the logged value; the program's output is not repeated.\n\n"
    "A checkpoint taken inside a hot loop is reached exactly but slowly (each\n"
    "visit of its pc costs a hardware-breakpoint exception).\n\n"
    "Not yet: --print-regs, --read, a backtrace in divergence reports,\n"
    "multithreaded recordings; some recordings with signal handlers interrupting\n"
    "syscalls still report a divergence.\n";

// --- GDB / --server mode (issue #4); parsing kept apart from --check's.
struct DebuggerOptions {
  std::vector<std::string> gdb_args;  // after "--"
  std::optional<std::string> server;
  bool allow_remote = false;
  std::optional<std::string> start_at;  // --goto / --at
};

// Takes everything after "--" out of `args` (GDB's arguments).
std::vector<std::string> take_gdb_args(std::vector<std::string>& args) {
  std::vector<std::string> gdb;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--") {
      gdb.assign(args.begin() + static_cast<long>(i) + 1, args.end());
      args.resize(i);
      break;
    }
  }
  return gdb;
}

// Takes --server, --allow-remote, --goto, --at out of `args`; an error text when malformed.
std::optional<std::string> take_debugger_options(std::vector<std::string>& args, DebuggerOptions& out) {
  std::vector<std::string> rest;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&]() -> std::optional<std::string> {
      if (i + 1 >= args.size() || args[i + 1].empty()) return std::nullopt;
      return args[++i];
    };
    if (a == "--server" || a == "--goto" || a == "--at") {
      auto v = value();
      if (!v) return "replay: " + a + " needs a value (see slsdbg replay --help)";
      if (a == "--server") out.server = *v;
      if (a == "--goto") out.start_at = *v;
      if (a == "--at") {
        if (v->find_first_not_of("0123456789") != std::string::npos) {
          return "replay: --at wants a checkpoint number, not '" + *v + "'";
        }
        out.start_at = *v;
      }
    } else if (a == "--allow-remote") {
      out.allow_remote = true;
    } else {
      rest.push_back(a);
    }
  }
  args = std::move(rest);
  if (out.allow_remote && !out.server) return std::string("replay: --allow-remote only applies to --server");
  return std::nullopt;
}

#ifdef SLSDBG_HAVE_GDBSERVER_REPLAY
int run_debugger(const std::string& rec, const DebuggerOptions& opts) {
  std::optional<gdbserver::ListenSpec> spec;
  if (opts.server) {
    auto parsed = gdbserver::parse_listen_spec(*opts.server);
    if (!parsed.ok()) return fail("replay: --server: " + parsed.error().message, 2);
    spec = *parsed;
  }
  auto reader = store::RecordingReader::open(rec);
  if (!reader.ok()) return fail("replay: " + rec + ": " + reader.error().message);
  gdbserver::ReplayFrontendOptions options;
  options.start_at = opts.start_at;
  Result<int> code = 0;
  if (spec) {
    auto access = opts.allow_remote ? gdbserver::RemoteAccess::AllowRemote : gdbserver::RemoteAccess::LoopbackOnly;
    code = gdbserver::serve_recording(**reader, *spec, access, options);
    if (!code.ok() && code.error().message.starts_with("refusing to listen")) {
      return fail("replay: --server: " + code.error().message + " (--allow-remote)", 2);
    }
  } else {
    code = gdbserver::run_gdb_on_recording(**reader, opts.gdb_args, options);
  }
  if (!code.ok()) return fail("replay: " + code.error().message);
  return *code;
}
#else
int run_debugger(const std::string& rec, const DebuggerOptions&) {
  auto reader = store::RecordingReader::open(rec);
  if (!reader.ok()) return fail("replay: " + rec + ": " + reader.error().message);
  return fail("replay: this build has no gdbserver for replays (gdbserver/replay needs engine/replay's Timeline)");
}
#endif

int run(const std::vector<std::string>& original_args) {
  std::vector<std::string> args = original_args;
  DebuggerOptions debugger;
  debugger.gdb_args = take_gdb_args(args);
  if (auto err = take_debugger_options(args, debugger)) return fail(*err, 2);
  std::string rec;
  bool check = false;
  for (const std::string& a : args) {
    if (a == "--check") {
      check = true;
    } else if (!a.empty() && a[0] == '-') {
      return fail("replay: unknown option '" + a + "' (see slsdbg replay --help)", 2);
    } else if (rec.empty()) {
      rec = a;
    } else {
      return fail("replay: more than one recording given ('" + rec + "', '" + a + "')", 2);
    }
  }
  if (rec.empty()) return fail("replay: no recording given (see slsdbg replay --help)", 2);
  if (!check) return run_debugger(rec, debugger);
  if (debugger.server || debugger.start_at || !debugger.gdb_args.empty()) {
    return fail("replay: --check replays the whole recording; it takes no --server, --goto, --at or GDB arguments", 2);
  }
  auto reader = store::RecordingReader::open(rec);
  if (!reader.ok()) return fail("replay: " + reader.error().message);
  const bool tty = isatty(STDERR_FILENO);
  auto progress = [tty](uint64_t k, uint64_t total) {
    if (tty) std::fprintf(stderr, "\rreplay: checkpoint %llu / %llu", (unsigned long long)k, (unsigned long long)total);
  };
  auto report = replay::check_recording(**reader, progress);
  if (tty) std::fprintf(stderr, "\r\033[K");
  if (!report.ok()) return fail("replay: " + report.error().message);
  if (report->divergence) {
    std::printf("DIVERGED: %s\n", report->divergence->describe().c_str());
    return 1;
  }
  std::printf("OK: %llu checkpoints, %llu boundaries crossed by execution, %llu by restore, %llu events replayed, "
              "%llu pages compared\n",
              (unsigned long long)report->checkpoints, (unsigned long long)report->crossed_by_execution,
              (unsigned long long)report->crossed_by_restore, (unsigned long long)report->events_replayed,
              (unsigned long long)report->pages_compared);
  return 0;
}

Registrar reg({"replay", "EXPERIMENTAL: replay a recording in GDB (or --server, --check)", kUsage, run, 70});

}  // namespace
}  // namespace slsdbg::cli

#endif  // SLSDBG_HAVE_REPLAY
