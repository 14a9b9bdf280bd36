// `slsdbg replay REC --check`: replay a whole recording from checkpoint 0 and
// compare the replayed state with every recorded checkpoint.
// `slsdbg replay REC --goto MOMENT|--at K`: go there (engine/replay's
// Timeline) and print the moment, registers and memory for scripts.
// `slsdbg replay REC [--goto|--at] [-- GDB-ARGS]`: GDB on the recording;
// `--server ADDR`: serve it to one debugger (gdbserver/replay).

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <iterator>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "cli/binary_warnings.h"
#include "cli/command.h"
#include "cli/member_option.h"
#include "cli/options.h"
#include "cli/recording_dir.h"
#include "cli/replay_inferiors.h"
#include "engine/replay/replay_check.h"
#include "engine/replay/threaded_timeline.h"
#include "engine/replay/timeline.h"
#include "gdbserver/replay/replay_frontend.h"
#include "store/recording.h"

namespace slsdbg::cli {
namespace {

const char kUsage[] =
    "usage: slsdbg replay REC [-p PID] [--goto MOMENT | --at K] [-- GDB-ARGS...]\n"
    "       slsdbg replay REC --inferiors [--cut N] [-- GDB-ARGS...]\n"
    "       slsdbg replay REC --server [HOST:]PORT|unix:PATH [--allow-remote] [--goto MOMENT | --at K]\n"
    "       slsdbg replay REC --check\n"
    "       slsdbg replay REC (--goto MOMENT | --at K) [--print-regs] [--read ADDR:LEN]... [--json]\n\n"
    "Replays recording REC deterministically from its event log: the process\n"
    "record started, or with -p PID any process of the recorded tree, each from\n"
    "its own log (`slsdbg info REC` lists them). A process with threads is\n"
    "replayed one thread at a time in log order, each segment from its own\n"
    "restore: --check, and GDB/--server with every thread (info threads,\n"
    "thread N, continue and stepi forward, breakpoints and watchpoints hit by\n"
    "any thread, reverse-continue to them, reverse-stepi, moments and\n"
    "bookmarks, last-write, catch syscall both ways, --goto/--at with\n"
    "--print-regs/--read). Its moments name a thread: K:t=TID:pc=0xPC:n=N\n"
    "(monitor when prints them). Not yet for threads: a reverse step into a\n"
    "segment where the thread did not run or from a caught system call,\n"
    "GDB's inferior calls.\n\n"
    "Without --check, --server, --print-regs, --read or --json: starts gdb\n"
    "connected to the recording at its start (or at --goto/--at), with the\n"
    "recorded program's symbols loaded, over a Unix socket in a private 0700\n"
    "directory. Arguments after -- go to gdb (e.g. -- -batch -x script.gdb).\n"
    "GDB's reverse-continue, reverse-step, reverse-next, reverse-finish,\n"
    "reverse-stepi and watchpoints work across checkpoints; `monitor help`\n"
    "lists when, checkpoints, goto, bookmark(s) and dump; gdb's `goto WHERE`\n"
    "(defined by slsdbg) moves and refreshes the frame. The program's exit is\n"
    "shown as the end of history (with a note saying how it ended), so reverse\n"
    "execution still works there. Registers and memory of a replay cannot be\n"
    "written.\n\n"
    "  -p PID           the recorded process PID (default: the one record started)\n"
    "  --inferiors      every process of the tree as a GDB inferior (`info\n"
    "            inferiors`, `inferior N`; inferior 1 is the root), each\n"
    "            replayed from its own log by a server of its own.\n"
    "  --cut N          with --inferiors: start each inferior at its checkpoint\n"
    "            in group cut N (`slsdbg info` counts them; one moment of the\n"
    "            whole tree); only the processes alive then.\n"
    "  --server ADDR    serve one debugger instead (gdb `target remote ADDR`,\n"
    "            lldb `gdb-remote ADDR`); PORT alone binds 127.0.0.1, port 0\n"
    "            picks a free one; prints the address to connect to. An LLDB\n"
    "            with reverse execution (scripts/lldb-reverse-venv.sh makes\n"
    "            one) goes back with `process continue --reverse`.\n"
    "  --allow-remote   let --server listen on a non-loopback address (anyone\n"
    "            who can connect reads the recorded memory).\n\n"
    "CPU state no program input decides (XINUSE-dependent bytes of XSAVE\n"
    "areas, dead stack below rsp) is set to the recorded bytes at each\n"
    "checkpoint; any other difference is reported as a divergence\n"
    "(engine/replay/README.md).\n\n"
    "  --check   replay the whole recording from checkpoint 0; at every checkpoint\n"
    "            reached by execution compare the registers and the pages the\n"
    "            checkpoint lists as dirty with the recorded ones. Prints OK with\n"
    "            how many checkpoint boundaries were crossed by execution and how\n"
    "            many by restore (forced checkpoints after unmodelled syscalls),\n"
    "            how many were reached through the patched in-process breakpoint\n"
    "            (checkpoints in hot loops) and how many segments had to be\n"
    "            replayed again without it, exit 0; or the first divergence\n"
    "            (segment, event, expected vs actual, pc), exit 1.\n"
    "  --goto MOMENT  go to a moment K:E:PC:N (segment K, after its E-th event,\n"
    "            the N-th execution of the instruction at PC since then; PC in hex\n"
    "            with or without 0x) or K alone (checkpoint K), then print it (below).\n"
    "            With threads a moment is K:t=TID:pc=0xPC:n=N[:steps=S] as GDB's\n"
    "            `monitor when` prints it; the registers are that thread's.\n"
    "  --at K    go to checkpoint K (same as --goto K).\n"
    "  --print-regs  print the general registers there.\n"
    "  --read ADDR:LEN  print LEN bytes (at most 1 MiB) of memory at ADDR (hex\n"
    "            with 0x, or decimal) in hex; repeatable. Fewer bytes when the\n"
    "            range ends in unmapped memory; an unreadable start is an error.\n"
    "  --json    one JSON object: moment, checkpoint, thread (with threads), regs, memory.\n\n"
    "How: syscalls are checked against the log (number and all six argument\n"
    "registers) and emulated from it; address-space, signal-state, fs-base and\n"
    "read-only open/close syscalls run for real and are checked; rdtsc returns\n"
    "the logged value; the program's output is not repeated. A moment is\n"
    "reached by restoring checkpoint K (or forking a snapshot of it) and\n"
    "replaying with PC's executions counted in the process (a patched jump to\n"
    "a counter), or by a hardware breakpoint where PC cannot be patched.\n\n"
    "Not yet: a backtrace in divergence reports; some recordings with signal\n"
    "handlers interrupting syscalls still report a divergence.\n";

struct ReplayArgs {
  std::string rec = "latest";
  bool check = false;
  std::optional<std::string> goto_moment;  // --goto text, or --at K as "K"
  bool print_regs = false;
  std::vector<std::pair<uint64_t, uint64_t>> reads;  // addr, len
  bool json = false;
  MemberOption member;  // -p PID
};

std::optional<uint64_t> parse_u64(const std::string& text) {
  if (text.empty()) return std::nullopt;
  const bool hex = text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
  const std::string digits = hex ? text.substr(2) : text;
  if (digits.empty() || digits.find_first_not_of(hex ? "0123456789abcdefABCDEF" : "0123456789") != std::string::npos)
    return std::nullopt;
  errno = 0;
  const unsigned long long v = std::strtoull(digits.c_str(), nullptr, hex ? 16 : 10);
  if (errno == ERANGE) return std::nullopt;
  return v;
}

int run_check(const store::RecordingReader& reader) {
  warn_about_binaries(reader, "replay");
  const bool tty = isatty(STDERR_FILENO);
  auto progress = [tty](uint64_t k, uint64_t total) {
    if (tty) std::fprintf(stderr, "\rreplay: checkpoint %llu / %llu", (unsigned long long)k, (unsigned long long)total);
  };
  auto report = replay::check_recording(reader, progress);
  if (tty) std::fprintf(stderr, "\r\033[K");
  if (!report.ok()) return fail("replay: " + report.error().message);
  if (report->divergence) {
    std::printf("DIVERGED: %s\n", report->divergence->describe().c_str());
    return 1;
  }
  std::printf("OK: %llu checkpoints, %llu boundaries crossed by execution, %llu by restore, %llu events replayed, "
              "%llu pages compared, %llu reached by patched breakpoint, %llu segments replayed again\n",
              (unsigned long long)report->checkpoints, (unsigned long long)report->crossed_by_execution,
              (unsigned long long)report->crossed_by_restore, (unsigned long long)report->events_replayed,
              (unsigned long long)report->pages_compared, (unsigned long long)report->reached_patched,
              (unsigned long long)report->segments_rerun);
  if (report->cut_short)
    std::printf("history ends at checkpoint %llu: the recording stops there (no exit was recorded)\n",
                (unsigned long long)report->end_checkpoint);
  else
    std::printf("history ends when the process ends, in segment %llu\n", (unsigned long long)report->end_checkpoint);
  return 0;
}

std::string hex64(uint64_t v) {
  char b[32];
  std::snprintf(b, sizeof b, "0x%llx", (unsigned long long)v);
  return b;
}

// What --goto / --at prints once there: the moment, the registers and the
// memory asked for (text, or one JSON object).
int print_goto(const ReplayArgs& a, const std::string& moment, uint64_t checkpoint, std::optional<Tid> thread,
               const user_regs_struct& r, const std::function<Result<size_t>(uint64_t, std::span<uint8_t>)>& read) {
  const std::pair<const char*, unsigned long long> named[] = {
      {"rip", r.rip}, {"rsp", r.rsp}, {"rbp", r.rbp}, {"rax", r.rax}, {"rbx", r.rbx}, {"rcx", r.rcx},
      {"rdx", r.rdx}, {"rsi", r.rsi}, {"rdi", r.rdi}, {"r8", r.r8},   {"r9", r.r9},   {"r10", r.r10},
      {"r11", r.r11}, {"r12", r.r12}, {"r13", r.r13}, {"r14", r.r14}, {"r15", r.r15}, {"eflags", r.eflags},
      {"fs_base", r.fs_base}, {"gs_base", r.gs_base}};
  std::vector<std::pair<uint64_t, std::string>> memory;  // addr, hex
  for (const auto& [addr, len] : a.reads) {
    std::vector<uint8_t> buf(len);
    auto n = read(addr, buf);
    if (!n.ok()) return fail("replay: cannot read " + hex64(addr) + ": " + n.error().message);
    std::string h;
    char b[4];
    for (size_t i = 0; i < *n; i++) {
      std::snprintf(b, sizeof b, "%02x", buf[i]);
      h += b;
    }
    memory.emplace_back(addr, h);
  }
  if (a.json) {
    std::printf("{\"moment\":\"%s\",\"checkpoint\":%llu", moment.c_str(), (unsigned long long)checkpoint);
    if (thread) std::printf(",\"thread\":%d", thread->value);
    if (a.print_regs) {
      std::printf(",\"regs\":{");
      for (size_t i = 0; i < std::size(named); i++)
        std::printf("%s\"%s\":\"%s\"", i ? "," : "", named[i].first, hex64(named[i].second).c_str());
      std::printf("}");
    }
    std::printf(",\"memory\":[");
    for (size_t i = 0; i < memory.size(); i++)
      std::printf("%s{\"addr\":\"%s\",\"len\":%zu,\"hex\":\"%s\"}", i ? "," : "", hex64(memory[i].first).c_str(),
                  memory[i].second.size() / 2, memory[i].second.c_str());
    std::printf("]}\n");
    return 0;
  }
  std::printf("moment %s\n", moment.c_str());
  if (thread) std::printf("thread   %d\n", thread->value);
  if (a.print_regs)
    for (const auto& [name, v] : named) std::printf("%-8s %s\n", name, hex64(v).c_str());
  for (const auto& [addr, h] : memory) std::printf("%s: %s\n", hex64(addr).c_str(), h.c_str());
  return 0;
}

// --goto / --at on a recording with threads: a threaded position
// (engine/replay/threaded_position.h); the registers are the thread the
// position names (at a checkpoint's start, the first thread).
int run_goto_threaded(const store::RecordingReader& reader, const ReplayArgs& a) {
  auto where = replay::ThreadedPosition::parse(*a.goto_moment);
  if (!where.ok()) return fail("replay: " + where.error().message, kExitUsage);
  auto tl = replay::ThreadedTimeline::open(reader);
  if (!tl.ok()) return fail("replay: " + tl.error().message);
  auto st = (*tl)->goto_moment(*where);
  if (!st.ok()) return fail("replay: " + st.error().message);
  Tid thread = st->thread;
  if (thread.value == 0) {
    std::vector<Tid> live = (*tl)->threads();
    if (live.empty()) return fail("replay: no thread is alive at " + *a.goto_moment);
    thread = live.front();
  }
  auto regs = (*tl)->regs(thread);
  if (!regs.ok()) return fail("replay: reading registers of thread " + std::to_string(thread.value) + ": " + regs.error().message);
  replay::ThreadedTimeline* t = tl->get();
  return print_goto(a, t->moment(), t->current_segment().value, thread, *regs,
                    [t](uint64_t addr, std::span<uint8_t> out) { return t->read_memory(addr, out); });
}

// --goto / --at: go there, print the moment, registers and memory asked for.
int run_goto(const store::RecordingReader& reader, const ReplayArgs& a) {
  if (reader.meta().threads) return run_goto_threaded(reader, a);
  auto moment = replay::Moment::parse(*a.goto_moment);
  if (!moment.ok()) return fail("replay: " + moment.error().message);
  auto tl = replay::Timeline::open(reader);
  if (!tl.ok()) return fail("replay: " + tl.error().message);
  auto st = (moment->pc == 0 && moment->event == 0) ? (*tl)->goto_checkpoint(CheckpointId(moment->checkpoint))
                                                     : (*tl)->goto_moment(*moment);
  if (!st.ok()) return fail("replay: " + st.error().message);
  auto here = (*tl)->current_moment();
  if (!here.ok()) return fail("replay: " + here.error().message);
  auto regs = (*tl)->regs();
  if (!regs.ok()) return fail("replay: reading registers: " + regs.error().message);
  replay::Timeline* t = tl->get();
  return print_goto(a, here->to_string(), here->checkpoint, std::nullopt, *regs,
                    [t](uint64_t addr, std::span<uint8_t> out) { return t->read_memory(addr, out); });
}

// --- GDB / --server mode (issue #4).
struct DebuggerOptions {
  std::vector<std::string> gdb_args;  // after "--"
  std::optional<std::string> server;
  bool allow_remote = false;
  bool inferiors = false;        // --inferiors
  std::optional<uint64_t> cut;  // --cut N
};

// What the options ask for besides --check and the scripted --goto output.
bool wants_script_output(const ReplayArgs& a) { return a.print_regs || !a.reads.empty() || a.json; }

// Parses the arguments; nullopt to go on, else the exit code (usage error or --help).
std::optional<int> parse_replay_args(const std::vector<std::string>& args, ReplayArgs& out, DebuggerOptions& debugger) {
  Options opts("replay", Rest::AfterDashDash);  // after `--`: GDB's arguments
  std::string moment, at, server;
  std::vector<std::string> reads;
  opts.recording(out.rec)->required(false);  // `slsdbg replay` alone opens the newest recording
  opts.flag("--check", out.check);
  out.member.add(opts);
  CLI::Option* goto_opt = opts.text("--goto", moment, "a moment");
  CLI::Option* at_opt = opts.text("--at", at, "a checkpoint number");
  opts.flag("--print-regs", out.print_regs);
  opts.texts("--read", reads, "ADDR:LEN");
  opts.flag("--json", out.json);
  CLI::Option* server_opt = opts.text("--server", server, "an address");
  std::string cut;
  opts.flag("--inferiors", debugger.inferiors);
  CLI::Option* cut_opt = opts.text("--cut", cut, "a group cut number");
  opts.flag("--allow-remote", debugger.allow_remote);
  if (auto done = opts.parse(args)) return done;
  debugger.gdb_args = opts.rest();
  if (server_opt->count()) {
    if (server.empty()) return opts.usage_error("--server needs an address");
    debugger.server = server;
  }
  if (debugger.allow_remote && !debugger.server) return opts.usage_error("--allow-remote only applies to --server");
  if (goto_opt->count() && at_opt->count()) return opts.usage_error("--goto/--at given twice");
  if (cut_opt->count()) {
    debugger.cut = parse_u64(cut);
    if (!debugger.cut || *debugger.cut == 0) return opts.usage_error("--cut '" + cut + "': not a group cut number (1, 2, ...)");
    if (!debugger.inferiors) return opts.usage_error("--cut goes with --inferiors");
  }
  if (debugger.inferiors && (out.check || debugger.server || goto_opt->count() || at_opt->count() ||
                             out.member.given() || !reads.empty() || out.print_regs || out.json))
    return opts.usage_error("--inferiors starts GDB on every process; it does not go with -p, --check, --server, --goto/--at or --print-regs/--read/--json");
  if (at_opt->count() && !parse_u64(at)) return opts.usage_error("--at '" + at + "': not a checkpoint number");
  if (goto_opt->count() || at_opt->count()) out.goto_moment = goto_opt->count() ? moment : at;
  for (const std::string& v : reads) {
    const size_t colon = v.find(':');
    const auto addr = colon == std::string::npos ? std::nullopt : parse_u64(v.substr(0, colon));
    const auto len = colon == std::string::npos ? std::nullopt : parse_u64(v.substr(colon + 1));
    if (!addr || !len) return opts.usage_error("--read '" + v + "': expected ADDR:LEN (e.g. 0x601040:8)");
    if (*len == 0 || *len > (1u << 20)) return opts.usage_error("--read '" + v + "': LEN must be 1..1048576");
    out.reads.emplace_back(*addr, *len);
  }
  if (out.check && out.goto_moment) return opts.usage_error("--check cannot be combined with --goto/--at");
  if (!out.goto_moment && wants_script_output(out))
    return opts.usage_error("--print-regs, --read and --json need --goto or --at");
  if ((out.check || wants_script_output(out)) && (debugger.server || !debugger.gdb_args.empty()))
    return opts.usage_error("--server and GDB arguments do not go with --check, --print-regs, --read or --json");
  // A malformed --server address is a usage error, reported before the recording is looked up.
  if (debugger.server) {
    auto parsed = gdbserver::parse_listen_spec(*debugger.server);
    if (!parsed.ok()) return opts.usage_error("--server: " + parsed.error().message);
  }
  return std::nullopt;
}

int run_debugger(const std::string& rec, const std::optional<std::string>& start_at, const DebuggerOptions& opts) {
  std::optional<gdbserver::ListenSpec> spec;
  if (opts.server) {
    auto parsed = gdbserver::parse_listen_spec(*opts.server);
    if (!parsed.ok()) return fail("replay: --server: " + parsed.error().message, kExitUsage);
    spec = *parsed;
  }
  auto reader = store::RecordingReader::open(rec);
  if (!reader.ok()) return fail("replay: " + reader.error().message);
  gdbserver::ReplayFrontendOptions options;
  options.start_at = start_at;
  options.recording_dir = rec;
  std::optional<InferiorServers> inferiors;  // ended after GDB (its detach ends them)
  if (opts.inferiors) {
    auto started = InferiorServers::start(rec, opts.cut, options.start_at);
    if (!started.ok())
      return fail("replay: " + started.error().message, started.error().is(ErrorKind::BadInput) ? kExitUsage : kExitFailure);
    inferiors.emplace(std::move(*started));
    options.extra_gdb_setup = inferiors->gdb_setup();
  }
  Result<int> code = 0;
  if (spec) {
    auto access = opts.allow_remote ? gdbserver::RemoteAccess::AllowRemote : gdbserver::RemoteAccess::LoopbackOnly;
    code = gdbserver::serve_recording(**reader, *spec, access, options);
    if (!code.ok() && code.error().is(ErrorKind::BadInput)) {  // e.g. a non-loopback address without --allow-remote
      return fail("replay: --server: " + code.error().message + " (--allow-remote)", kExitUsage);
    }
  } else {
    code = gdbserver::run_gdb_on_recording(**reader, opts.gdb_args, options);
  }
  if (!code.ok()) return fail("replay: " + code.error().message);
  return *code;
}

int run(const std::vector<std::string>& args) {
  ReplayArgs a;
  DebuggerOptions debugger;
  if (auto done = parse_replay_args(args, a, debugger)) return *done;
  const bool debugger_mode = !a.check && !wants_script_output(a);
  auto dir = a.member.resolve(a.rec);  // a path, `latest` or a name under $SLSDBG_DIR; -p: a member
  if (!dir.ok()) return fail("replay: " + dir.error().message);
  a.rec = *dir;
  if (debugger_mode) return run_debugger(a.rec, a.goto_moment, debugger);
  auto reader = store::RecordingReader::open(a.rec);
  if (!reader.ok()) return fail("replay: " + reader.error().message);
  if (a.check) return run_check(**reader);
  return run_goto(**reader, a);
}

Registrar reg({"replay", "replay a recording in GDB: reverse execution (or --server, --check, --goto/--at)", kUsage, run, 70});

}  // namespace
}  // namespace slsdbg::cli

