// slsdbg bisect: the first moment an invariant stops holding in a recording.
//
//   1. binary search over checkpoints (search.h), each probe an Invariant
//      evaluated at a checkpoint read straight from the store;
//   2. the answer at checkpoint granularity: the first bad checkpoint, its
//      function, FILE:LINE and backtrace (engine/dump);
//   3. refinement inside the first bad segment to the exact instruction
//      (refine.h), when the Timeline is built in and the invariant's memory
//      can be watched; otherwise the report says why it stayed at segment
//      granularity.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"
#include "engine/bisect/search.h"
#include "engine/dump/unwinder.h"

namespace slsdbg::bisect {

enum class Mode { Expr, Plugin, Cmd };
enum class Refinement { Auto, Off };

struct BisectOptions {
  std::string recording;
  Mode mode = Mode::Expr;
  std::string spec;                  // the expression, plugin path or shell command
  std::string plugin_arg;            // --plugin-arg
  std::optional<uint64_t> good, bad; // checkpoint ids (default: first, last)
  unsigned spot_checks = 2;
  Refinement refinement = Refinement::Auto;
  std::vector<std::string> show;     // GDB expressions printed at the answer
  std::string core_out;              // --core FILE: keep a core of the answer there
  // One line per probe, for terminals: "probe 3 (search): checkpoint 157 -> bad".
  std::function<void(const std::string& line)> progress;
  // Polled between probes; true = stop with an error (the scratch cores are removed).
  std::function<bool()> interrupted;
};

struct Location {
  uint64_t pc = 0;
  std::string function;   // "" when no symbol covers it
  std::string file;       // "" without debug info
  int line = 0;
  std::vector<dump::Frame> backtrace;
  std::string backtrace_error;
};

enum class RefineState {
  NotBuilt,     // this slsdbg has no Timeline (refinement not done)
  Off,          // --no-refine
  Unavailable,  // cannot watch what the invariant reads (note says why)
  Failed,       // tried; note says what went wrong
  Done,
};

struct Refined {
  std::string moment;               // "K:E:0xPC:N"
  Location at;                      // where execution stands (just after the writing instruction)
  uint64_t write_pc = 0;            // the writing instruction (0 when unknown)
  std::string write_file;           // its FILE:LINE
  int write_line = 0;
  std::string write_function;
  std::string detail;               // the invariant's own words there
  uint64_t watch_hits = 0;          // watchpoint stops in the segment
  uint64_t evaluations = 0;         // invariant evaluations during refinement
  std::vector<std::string> watched; // "bank (0x404028, 8 bytes)"
};

// --cmd: what refinement learned by asking the command which changed words
// of memory its verdict depends on (cmd_discover.h).
struct Discovered {
  std::vector<std::string> regions;  // the memory compared: "bisect_bank data 0x...-0x...", "[heap] ..."
  uint64_t changed_words = 0;        // 8-byte words that differ between the last good and first bad checkpoints
  uint64_t candidates = 0;           // of them, tried (capped: program data first)
  uint64_t probes = 0;               // command runs over patched cores
  // "found" (words: what the verdict depends on, "bank (0x4028)"), "none" (no
  // subset of the changed words flips it) or "too_many" (words: more than the
  // replay can watch, found before giving up).
  std::string outcome;
  std::vector<std::string> words;
  double seconds = 0;
};

struct BisectReport {
  std::string recording;
  std::string invariant;
  uint64_t checkpoints = 0;          // in the recording
  uint64_t range_first = 0, range_last = 0;  // searched ids
  uint64_t range_size = 0;
  Outcome outcome = Outcome::Found;
  uint64_t last_good = 0, first_bad = 0;     // ids
  uint64_t last_good_ns = 0, first_bad_ns = 0;
  uint64_t witness_bad = 0, witness_good = 0;  // NotMonotone
  std::vector<std::pair<uint64_t, ProbeRecord>> probes;  // (checkpoint id, probe)
  size_t search_probes = 0, endpoint_probes = 0, spot_probes = 0;
  size_t search_bound = 0;           // ceil(log2(range_size))
  std::string first_bad_detail;
  Location at_first_bad;             // checkpoint granularity
  RefineState refine_state = RefineState::NotBuilt;
  std::string refine_note;
  std::optional<Refined> refined;
  std::optional<Discovered> discovered;  // --cmd, when refinement asked the command
  std::vector<std::pair<std::string, std::string>> shown;  // --show EXPR -> value (or "error: ...")
  std::string goto_command;          // opens GDB at the answer
  std::string core_out;              // where --core wrote the answer's core
  std::string exe;
  double seconds = 0;
};

Result<BisectReport> run_bisect(const BisectOptions& options);

std::string format_report_text(const BisectReport& report);
std::string format_report_json(const BisectReport& report);

// True when this build refines with the Timeline (engine/replay/timeline.h).
bool refinement_built();

}  // namespace slsdbg::bisect
