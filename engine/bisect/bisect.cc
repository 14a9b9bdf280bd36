#include "engine/bisect/bisect.h"

#include <sys/stat.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <memory>

#include "engine/bisect/cmd_discover.h"
#include "engine/bisect/cmd_invariant.h"
#include "engine/bisect/exe_symbols.h"
#include "engine/bisect/expr_invariant.h"
#include "engine/bisect/gdb_mi.h"
#include "engine/bisect/locate.h"
#include "engine/bisect/plugin_invariant.h"
#include "engine/bisect/refine.h"
#include "engine/bisect/refine_threads.h"
#include "engine/bisect/scratch_dir.h"
#include "engine/dump/recording_memory.h"
#include "store/recording.h"

namespace slsdbg::bisect {
namespace {

bool file_exists(const std::string& path) {
  struct stat st;
  return !path.empty() && ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

// The recorded executable, for symbols and GDB: /proc/PID/exe as captured,
// else the program as given (relative to the recording's cwd).
Result<std::string> find_exe(const store::ProcessState& state, const store::RecordingMeta& meta) {
  if (file_exists(state.exe)) return state.exe;
  std::string given = meta.program;
  if (!given.empty() && given[0] != '/') given = meta.cwd + "/" + given;
  if (file_exists(given)) return given;
  return Error::msg("the recorded program " + (state.exe.empty() ? meta.program : state.exe) +
                    " no longer exists (bisect needs it for symbols and GDB)");
}

Result<size_t> index_of(const std::vector<store::CheckpointInfo>& cps, uint64_t id, const char* option) {
  for (size_t i = 0; i < cps.size(); i++)
    if (cps[i].id.value == id) return i;
  return Error::msg(std::string(option) + " " + std::to_string(id) + ": no such checkpoint (the recording has " +
                    std::to_string(cps.front().id.value) + ".." + std::to_string(cps.back().id.value) + ")");
}

size_t ceil_log2(uint64_t n) {
  size_t bits = 0;
  while ((uint64_t{1} << bits) < n) bits++;
  return bits;
}

const char* kind_name(ProbeKind k) {
  switch (k) {
    case ProbeKind::Search: return "search";
    case ProbeKind::Endpoint: return "edge";
    case ProbeKind::SpotCheck: return "spot check";
  }
  return "?";
}

struct CheckpointPoint {
  store::ProcessState state;
  std::unique_ptr<dump::RecordingMemory> memory;
  StateView view() { return StateView{&state, memory.get(), "checkpoint " + std::to_string(id)}; }
  uint64_t id = 0;
};

Result<CheckpointPoint> load_point(const store::RecordingReader& reader, CheckpointId id) {
  CheckpointPoint p;
  p.id = id.value;
  p.state = TRY_CTX(reader.process_state(id), "checkpoint " + std::to_string(id.value));
  if (p.state.threads.empty()) return Error::msg("checkpoint " + std::to_string(id.value) + " has no thread");
  p.memory = std::make_unique<dump::RecordingMemory>(reader, id);
  return p;
}

Result<std::unique_ptr<Invariant>> make_invariant(const BisectOptions& o, const std::string& exe,
                                                  const ExeSymbols* symbols, const ScratchDir& scratch) {
  switch (o.mode) {
    case Mode::Expr:
      if (o.spec.find('\n') != std::string::npos) return Error::msg("--expr must be one line");
      return std::unique_ptr<Invariant>(new ExprInvariant(exe, o.spec, *symbols, scratch));
    case Mode::Plugin: {
      auto p = TRY(PluginInvariant::load(o.spec, o.plugin_arg, *symbols));
      return std::unique_ptr<Invariant>(std::move(p));
    }
    case Mode::Cmd:
      return std::unique_ptr<Invariant>(new CmdInvariant(exe, o.spec, scratch));
  }
  return Error::msg("unknown mode");
}

// --cmd: what refinement should watch is learned by asking the command
// about patched cores of the segment's ends.
DiscoverInput discover_input(const RefineInput& in, const ExeSymbols* symbols) {
  DiscoverInput d;
  d.reader = in.reader;
  d.invariant = in.invariant;
  d.last_good = in.last_good;
  d.first_bad = in.first_bad;
  d.last_good_state = in.last_good_state;
  d.symbols = symbols;
  d.max_words = kReplayWatchWords;
  d.progress = in.progress;
  d.interrupted = in.interrupted;
  return d;
}

// A recording made with --threads is refined by the threaded replay.
RefineOutcome refine_in_segment(const RefineInput& in) {
  return in.reader->meta().threads ? refine_threaded_segment(in) : refine_segment(in);
}

}  // namespace

Result<BisectReport> run_bisect(const BisectOptions& o) {
  auto started = std::chrono::steady_clock::now();
  auto say = [&](const std::string& line) {
    if (o.progress) o.progress(line);
  };
  auto reader = TRY_CTX(store::RecordingReader::open(o.recording), o.recording);
  auto cps = reader->checkpoints();
  if (cps.size() < 2) return Error::msg(o.recording + ": bisect needs at least two checkpoints, the recording has " + std::to_string(cps.size()));
  size_t good = o.good ? TRY(index_of(cps, *o.good, "--good")) : 0;
  size_t bad = o.bad ? TRY(index_of(cps, *o.bad, "--bad")) : cps.size() - 1;
  if (good >= bad)
    return Error::msg("--good " + std::to_string(cps[good].id.value) + " must come before --bad " +
                      std::to_string(cps[bad].id.value));

  BisectReport r;
  r.recording = o.recording;
  r.checkpoints = cps.size();
  r.range_first = cps[good].id.value;
  r.range_last = cps[bad].id.value;
  r.range_size = bad - good + 1;
  r.search_bound = ceil_log2(r.range_size);

  CheckpointPoint first = TRY(load_point(*reader, cps[good].id));
  std::string exe = TRY(find_exe(first.state, reader->meta()));
  r.exe = exe;
  ScratchDir scratch = TRY(ScratchDir::create());
  std::optional<ExeSymbols> symbols;
  if (o.mode != Mode::Cmd) {
    symbols = TRY_CTX(ExeSymbols::load(exe, first.state), "reading symbols");
  } else if (auto s = ExeSymbols::load(exe, first.state); s.ok()) {
    symbols = std::move(*s);  // --cmd: only names the words refinement discovers
  }
  auto invariant = TRY(make_invariant(o, exe, symbols ? &*symbols : nullptr, scratch));
  r.invariant = invariant->describe();

  size_t probe_number = 0;
  ProbeFn probe = [&](size_t index, ProbeKind kind) -> Result<Evaluation> {
    if (o.interrupted && o.interrupted()) return Error::msg("interrupted");
    probe_number++;
    say("probe " + std::to_string(probe_number) + " (" + kind_name(kind) + "): checkpoint " +
        std::to_string(cps[index].id.value) + " ...");
    CheckpointPoint point = TRY(load_point(*reader, cps[index].id));
    Evaluation e = TRY(invariant->evaluate(point.view()));
    say("probe " + std::to_string(probe_number) + " (" + kind_name(kind) + "): checkpoint " +
        std::to_string(cps[index].id.value) + " is " + (e.verdict == Verdict::Good ? "good" : "bad"));
    return e;
  };
  SearchResult s = TRY(search_positions(good, bad, o.spot_checks, probe));
  r.outcome = s.outcome;
  r.last_good = cps[s.last_good].id.value;
  r.first_bad = cps[s.first_bad].id.value;
  r.last_good_ns = cps[s.last_good].time_ns;
  r.first_bad_ns = cps[s.first_bad].time_ns;
  r.witness_bad = cps[s.witness_bad].id.value;
  r.witness_good = cps[s.witness_good].id.value;
  for (const auto& p : s.probes) r.probes.emplace_back(cps[p.index].id.value, p);
  r.search_probes = s.count(ProbeKind::Search);
  r.endpoint_probes = s.count(ProbeKind::Endpoint);
  r.spot_probes = s.count(ProbeKind::SpotCheck);
  if (r.outcome == Outcome::AlreadyBad) r.first_bad = r.last_good;

  std::string answer_core;
  if (r.outcome != Outcome::NeverBad) {
    for (const auto& p : s.probes)
      if (cps[p.index].id.value == r.first_bad) r.first_bad_detail = p.evaluation.detail;
    CheckpointPoint at = TRY(load_point(*reader, CheckpointId(r.first_bad)));
    r.at_first_bad = locate(at.state, *at.memory);
    r.goto_command = "slsdbg replay " + o.recording + " --goto " + std::to_string(r.first_bad);
    if (!o.show.empty() || !o.core_out.empty()) answer_core = TRY(write_core_of(at.view(), scratch, "answer.core"));
  }

  if (r.outcome == Outcome::Found || r.outcome == Outcome::NotMonotone) {
    if (o.refinement == Refinement::Off) {
      r.refine_state = RefineState::Off;
      r.refine_note = "refinement turned off (--no-refine)";
    } else {
      CheckpointPoint last_good = TRY(load_point(*reader, CheckpointId(r.last_good)));
      RefineInput in;
      in.reader = reader.get();
      in.invariant = invariant.get();
      in.mode = o.mode;
      in.last_good = r.last_good;
      in.first_bad = r.first_bad;
      in.last_good_state = &last_good.state;
      in.watch = invariant->watch_set(last_good.view());
      in.scratch = &scratch;
      in.progress = o.progress;
      in.interrupted = o.interrupted;
      RefineOutcome out;
      if (o.mode == Mode::Cmd && refinement_built()) {
        auto found = discover_cmd_reads(discover_input(in, symbols ? &*symbols : nullptr));
        if (found.ok()) {
          in.watch = found->watch;
          r.discovered = found->info;
        } else {
          out.state = RefineState::Failed;
          out.note = found.error().message;
        }
      }
      if (out.state == RefineState::Failed) {
        // discovery could not ask the command
      } else if (o.mode == Mode::Cmd && !refinement_built()) {
        out = refine_in_segment(in);  // says it is not built
      } else if (!in.watch.unknown_because.empty() || in.watch.ranges.empty()) {
        out.state = RefineState::Unavailable;
        out.note = in.watch.unknown_because.empty() ? "the invariant reads no memory that could be watched"
                                                    : in.watch.unknown_because;
      } else {
        out = refine_in_segment(in);
      }
      if (r.discovered && out.state == RefineState::Failed)
        out.note += " (the command's verdict also depends on something the words that changed between the checkpoints "
                    "do not show: memory written in the segment and restored by its end, registers, the stack)";
      r.refine_state = out.state;
      r.refine_note = out.note;
      if (out.state == RefineState::Done && out.refined) {
        r.refined = out.refined;
        r.goto_command = reader->meta().threads
                             // no moments inside a segment with threads yet: its checkpoint
                             ? "slsdbg replay " + o.recording + " --at " + std::to_string(r.last_good)
                             : "slsdbg replay " + o.recording + " --goto " + out.refined->moment;
        if (!out.answer_core.empty()) answer_core = out.answer_core;
      }
    }
  }

  if (!o.show.empty() && !answer_core.empty()) {
    std::unique_ptr<GdbMi> own;
    auto* expr = dynamic_cast<ExprInvariant*>(invariant.get());
    GdbMi* gdb = expr ? expr->gdb() : nullptr;
    if (!gdb) {
      own = TRY(GdbMi::start(exe));
      gdb = own.get();
    }
    TRY_CTX(gdb->load_core(answer_core), "gdb could not load the core of the answer");
    for (const auto& expr : o.show) {
      auto v = gdb->evaluate(expr);
      r.shown.emplace_back(expr, v.ok() ? *v : "error: " + v.error().message);
    }
  }
  if (!o.core_out.empty() && !answer_core.empty()) {
    std::error_code ec;
    std::filesystem::copy_file(answer_core, o.core_out, std::filesystem::copy_options::overwrite_existing, ec);
    if (ec) return Error::msg("--core " + o.core_out + ": " + ec.message());
    std::filesystem::permissions(o.core_out, std::filesystem::perms::owner_read | std::filesystem::perms::owner_write,
                                 ec);  // process memory: 0600
    r.core_out = o.core_out;
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return r;
}

}  // namespace slsdbg::bisect
