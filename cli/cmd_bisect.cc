// slsdbg bisect: the first moment an invariant stops holding, by binary
// search over the recording's checkpoints (engine/bisect).

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>

#include "cli/command.h"
#include "cli/options.h"
#include "cli/recording_dir.h"
#include "engine/bisect/bisect.h"

namespace slsdbg::cli {
namespace {

const char kUsage[] =
    "usage: slsdbg bisect REC (--expr EXPR | --plugin LIB.so | --cmd COMMAND)\n"
    "                     [--good K] [--bad K] [--show EXPR]... [--core FILE] [--json]\n\n"
    "Finds the first checkpoint at which an invariant no longer holds, by binary\n"
    "search over the recording's checkpoints, then refines inside the segment\n"
    "before it to the exact instruction where the invariant flips. REC is a\n"
    "path, `latest` or a name under $SLSDBG_DIR (see `slsdbg ls`).\n\n"
    "The invariant, exactly one of:\n"
    "  --expr EXPR       a C expression over the program's globals and registers\n"
    "                    ($rax, $pc, ...), evaluated by GDB over a core of each\n"
    "                    probed point; true (nonzero) = good\n"
    "  --plugin LIB.so   a shared library implementing plugins/include/slsdbg_plugin.h\n"
    "                    (ABI version 1); --plugin-arg TEXT is passed to its init\n"
    "  --cmd COMMAND     a shell command run with SLSDBG_CORE (a core file of the\n"
    "                    probed point), SLSDBG_EXE (the program) and SLSDBG_WHERE\n"
    "                    (\"checkpoint 12\", or during refinement a moment or the\n"
    "                    last good checkpoint with some words patched) set;\n"
    "                    exit 0 = good, 1-124 = bad, 125 = cannot tell (stops\n"
    "                    the bisect), 126/127 or a signal = error; its last\n"
    "                    output line is reported with the verdict\n\n"
    "Options:\n"
    "  --good K          a checkpoint where the invariant holds (default: the first)\n"
    "  --bad K           a checkpoint where it does not (default: the last)\n"
    "  --spot-checks N   after the search, probe N more checkpoints far from the\n"
    "                    probed ones to notice an invariant that is not monotone\n"
    "                    (default 2; 0 = off)\n"
    "  --show EXPR       print EXPR (GDB) at the answer; repeatable\n"
    "  --core FILE       write a core of the answer to FILE (mode 0600)\n"
    "  --no-refine       stop at checkpoint granularity\n"
    "  --json            print the report as one JSON object\n\n"
    "Cost: at most ceil(log2 K) probes for K searched checkpoints, one more when\n"
    "the answer is at an edge of the range, plus the spot checks. The endpoints\n"
    "are probed only when the answer is next to them; a spot check that\n"
    "contradicts the search means the invariant is not monotone (a search alone\n"
    "cannot see that).\n\n"
    "Refinement replays the first bad segment from its last good checkpoint\n"
    "with hardware watchpoints (write) on the memory the invariant reads: for\n"
    "--expr the globals it names, for --plugin what the plugin read through\n"
    "read_memory while its verdict was good, for --cmd the words it is found to\n"
    "depend on by asking it: the command judges the last good checkpoint's core\n"
    "with some of the 8-byte words that changed in the segment (the program's\n"
    ".data/.bss and heap, at most 4096) replaced by their first-bad values, and\n"
    "the first bad one's with them replaced by their last-good values; a\n"
    "group-testing search keeps a set that turns the first bad and the second\n"
    "good and from which no word can be dropped (about 2 log2 of the changed\n"
    "words in command runs per word kept). The replay offers two 8-byte\n"
    "watchpoints today. What cannot be watched (registers, the stack, more\n"
    "words; for --expr memory behind pointers) leaves the answer at segment\n"
    "granularity, and the report says why. The answer is the moment just after\n"
    "the writing instruction, whose FILE:LINE is reported (for --cmd, with the\n"
    "command's last output line there). Its cost is one replay stop per write\n"
    "to the watched memory in the segment (two passes for --expr and --cmd).\n\n"
    "The report: the first bad checkpoint (and the last good one), the exact\n"
    "moment when refined, the function, FILE:LINE with debug info, the backtrace,\n"
    "and the command that opens GDB there (slsdbg replay REC --goto MOMENT).\n\n"
    "Exit status:\n"
    "  0  found: the report names where the invariant first fails\n"
    "  1  error (unreadable recording, bad expression, plugin or command failure)\n"
    "  2  bad usage\n"
    "  3  the invariant is already false at the first searched checkpoint\n"
    "  4  the invariant never becomes false (it holds at the last searched checkpoint)\n"
    "  5  not monotone: a spot check contradicts the search (the report names both)\n"
    "  130  interrupted (SIGINT/SIGTERM) during the search; its cores are removed.\n"
    "       Interrupted during refinement, it reports at segment granularity.\n";

constexpr int kExitAlreadyBad = 3;
constexpr int kExitNeverBad = 4;
constexpr int kExitNotMonotone = 5;

struct Parsed {
  bisect::BisectOptions options;
  bool json = false;
};

// The options into `p`; a usage problem as its text.
std::optional<std::string> check(Parsed& p, const CLI::Option* expr, const CLI::Option* plugin, const CLI::Option* cmd,
                                 const CLI::Option* good, const CLI::Option* bad, uint64_t good_k, uint64_t bad_k) {
  auto& o = p.options;
  const size_t modes = expr->count() + plugin->count() + cmd->count();
  if (modes == 0) return "give the invariant with one of --expr, --plugin, --cmd";
  if (modes > 1) return "give only one of --expr, --plugin, --cmd";
  o.mode = expr->count() ? bisect::Mode::Expr : plugin->count() ? bisect::Mode::Plugin : bisect::Mode::Cmd;
  const CLI::Option* given = expr->count() ? expr : plugin->count() ? plugin : cmd;
  if (o.spec.empty()) return given->get_name() + " is empty";
  if (!o.plugin_arg.empty() && o.mode != bisect::Mode::Plugin) return "--plugin-arg needs --plugin";
  if (good->count()) o.good = good_k;
  if (bad->count()) o.bad = bad_k;
  if (o.good && o.bad && *o.good >= *o.bad) return "--good must be a checkpoint before --bad";
  return std::nullopt;
}

volatile std::sig_atomic_t g_interrupted = 0;
void on_interrupt(int) { g_interrupted = 1; }

int run_bisect_command(const std::vector<std::string>& args) {
  Parsed parsed;
  auto& o = parsed.options;
  uint64_t good_k = 0, bad_k = 0, spot_checks = o.spot_checks;
  bool no_refine = false;
  Options opts("bisect");
  opts.recording(o.recording);
  CLI::Option* expr = opts.text("--expr", o.spec, "an expression");
  CLI::Option* plugin = opts.text("--plugin", o.spec, "a shared library");
  CLI::Option* cmd = opts.text("--cmd", o.spec, "a command");
  opts.text("--plugin-arg", o.plugin_arg, "text");
  CLI::Option* good = opts.number("--good", good_k, "a number");
  CLI::Option* bad = opts.number("--bad", bad_k, "a number");
  opts.number("--spot-checks", spot_checks, "a count");
  opts.texts("--show", o.show, "an expression");
  opts.text("--core", o.core_out, "a file name");
  opts.flag("--no-refine", no_refine);
  opts.flag("--json", parsed.json);
  if (auto done = opts.parse(args)) return *done;
  if (auto problem = check(parsed, expr, plugin, cmd, good, bad, good_k, bad_k)) return opts.usage_error(*problem);
  o.spot_checks = static_cast<unsigned>(std::min<uint64_t>(spot_checks, 1u << 20));
  if (no_refine) o.refinement = bisect::Refinement::Off;
  auto dir = recorder::resolve_recording(o.recording);  // a path, `latest` or a name under $SLSDBG_DIR
  if (!dir.ok()) return fail("bisect: " + dir.error().message);
  o.recording = *dir;
  // Ctrl-C ends the bisect between probes, so the cores it wrote (process
  // memory) are removed with their scratch directory.
  struct sigaction sa = {};
  sa.sa_handler = on_interrupt;
  sigemptyset(&sa.sa_mask);
  ::sigaction(SIGINT, &sa, nullptr);
  ::sigaction(SIGTERM, &sa, nullptr);
  parsed.options.interrupted = [] { return g_interrupted != 0; };
  bool tty = ::isatty(STDERR_FILENO);
  bool shown = false;
  if (tty)
    parsed.options.progress = [&](const std::string& line) {
      std::fprintf(stderr, "\r\033[Kbisect: %s", line.c_str());
      std::fflush(stderr);
      shown = true;
    };
  auto report = bisect::run_bisect(parsed.options);
  if (shown) std::fprintf(stderr, "\r\033[K");
  if (!report.ok()) return fail("bisect: " + report.error().message, g_interrupted ? 130 : 1);
  std::fputs(parsed.json ? bisect::format_report_json(*report).c_str() : bisect::format_report_text(*report).c_str(),
             stdout);
  switch (report->outcome) {
    case bisect::Outcome::Found: return 0;
    case bisect::Outcome::AlreadyBad: return kExitAlreadyBad;
    case bisect::Outcome::NeverBad: return kExitNeverBad;
    case bisect::Outcome::NotMonotone: return kExitNotMonotone;
  }
  return 1;
}

// --help says whether this very build refines (it needs the replay Timeline).
const std::string kFullUsage =
    std::string(kUsage) + (bisect::refinement_built()
                               ? ""
                               : "\nTHIS BUILD DOES NOT REFINE: it was built without the replay Timeline, so\n"
                                 "every answer is at checkpoint (segment) granularity, labelled so.\n");

Registrar reg({"bisect", "find where an invariant first fails (binary search over checkpoints)", kFullUsage.c_str(),
               run_bisect_command, 62});

}  // namespace
}  // namespace slsdbg::cli

