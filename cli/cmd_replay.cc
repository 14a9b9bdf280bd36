// `slsdbg replay REC --check`: replay a whole recording from checkpoint 0 and
// compare the replayed state with every recorded checkpoint.
#ifdef SLSDBG_HAVE_REPLAY

#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

#include "cli/command.h"
#include "engine/replay/replay_check.h"
#include "store/recording.h"

namespace slsdbg::cli {
namespace {

const char kUsage[] =
    "usage: slsdbg replay REC --check\n\n"
    "EXPERIMENTAL. Replays recording REC deterministically from its event log.\n"
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
    "Not yet: --at K / --goto MOMENT, --print-regs, --read, starting GDB, a\n"
    "backtrace in divergence reports, multithreaded recordings; some recordings\n"
    "with signal handlers interrupting syscalls still report a divergence.\n";

int run(const std::vector<std::string>& args) {
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
  if (rec.empty()) return fail("replay: no recording given (usage: slsdbg replay REC --check)", 2);
  if (!check) return fail("replay: only --check is implemented yet (see slsdbg replay --help)", 2);
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

Registrar reg({"replay", "EXPERIMENTAL: replay a recording from its log (--check)", kUsage, run, 70});

}  // namespace
}  // namespace slsdbg::cli

#endif  // SLSDBG_HAVE_REPLAY
