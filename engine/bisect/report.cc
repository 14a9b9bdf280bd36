// The bisect report as text (people) and as one JSON object (scripts).
#include <cstdio>

#include <nlohmann/json.hpp>

#include "engine/bisect/bisect.h"
#include "engine/dump/backtrace.h"

namespace slsdbg::bisect {
namespace {

std::string seconds(uint64_t ns) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f s", static_cast<double>(ns) / 1e9);
  return buf;
}

std::string hex(uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

std::string where_text(const std::string& function, const std::string& file, int line, uint64_t pc) {
  std::string s = function.empty() ? "?? (" + hex(pc) + ")" : function;
  if (!file.empty()) s += " at " + file + ":" + std::to_string(line);
  return s;
}

const char* outcome_name(Outcome o) {
  switch (o) {
    case Outcome::Found: return "found";
    case Outcome::AlreadyBad: return "already_bad";
    case Outcome::NeverBad: return "never_bad";
    case Outcome::NotMonotone: return "not_monotone";
  }
  return "?";
}

const char* refine_name(RefineState s) {
  switch (s) {
    case RefineState::NotBuilt: return "not_built";
    case RefineState::Off: return "off";
    case RefineState::Unavailable: return "unavailable";
    case RefineState::Failed: return "failed";
    case RefineState::Done: return "done";
  }
  return "?";
}

const char* kind_json(ProbeKind k) {
  switch (k) {
    case ProbeKind::Search: return "search";
    case ProbeKind::Endpoint: return "edge";
    case ProbeKind::SpotCheck: return "spot_check";
  }
  return "?";
}

nlohmann::json location_json(const Location& l) {
  nlohmann::json j;
  j["pc"] = hex(l.pc);
  j["function"] = l.function;
  j["file"] = l.file;
  j["line"] = l.line;
  nlohmann::json frames = nlohmann::json::array();
  for (const auto& f : l.backtrace) {
    nlohmann::json jf;
    jf["pc"] = hex(f.pc);
    jf["function"] = f.where.function;
    jf["file"] = f.where.file;
    jf["line"] = f.where.line;
    jf["module"] = f.where.module;
    frames.push_back(jf);
  }
  j["backtrace"] = frames;
  if (!l.backtrace_error.empty()) j["backtrace_error"] = l.backtrace_error;
  return j;
}

}  // namespace

std::string format_report_text(const BisectReport& r) {
  std::string out;
  auto line = [&](const std::string& s) { out += s + "\n"; };
  line("bisect " + r.recording + " " + r.invariant);
  line("searched checkpoints " + std::to_string(r.range_first) + ".." + std::to_string(r.range_last) + " (" +
       std::to_string(r.range_size) + " of " + std::to_string(r.checkpoints) + "): " + std::to_string(r.search_probes) +
       " search probes (at most ceil(log2 " + std::to_string(r.range_size) + ") = " + std::to_string(r.search_bound) +
       "), " + std::to_string(r.endpoint_probes) + " at an edge, " + std::to_string(r.spot_probes) + " spot checks");
  switch (r.outcome) {
    case Outcome::AlreadyBad:
      line("the invariant is already false at checkpoint " + std::to_string(r.first_bad) + " (the first searched)" +
           (r.first_bad_detail.empty() ? "" : ": " + r.first_bad_detail));
      break;
    case Outcome::NeverBad:
      line("the invariant never becomes false: it still holds at checkpoint " + std::to_string(r.range_last) +
           " (the last searched)");
      break;
    case Outcome::NotMonotone:
      line("NOT MONOTONE: checkpoint " + std::to_string(r.witness_bad) + " is bad but checkpoint " +
           std::to_string(r.witness_good) + " after it is good; the invariant flips back and forth, so what follows is one flip, not necessarily the first");
      [[fallthrough]];
    case Outcome::Found:
      line("first bad checkpoint: " + std::to_string(r.first_bad) + " at " + seconds(r.first_bad_ns) +
           " (last good: " + std::to_string(r.last_good) + " at " + seconds(r.last_good_ns) + ")" +
           (r.first_bad_detail.empty() ? "" : ": " + r.first_bad_detail));
      break;
  }
  if (r.outcome == Outcome::NeverBad) return out;

  if (r.discovered) {
    const Discovered& d = *r.discovered;
    char took[32];
    std::snprintf(took, sizeof took, "%.2f s", d.seconds);
    std::string words;
    for (const auto& w : d.words) words += (words.empty() ? "" : ", ") + w;
    std::string found = d.outcome == "found"      ? words
                        : d.outcome == "too_many" ? "more words than the replay watches (" + words + ")"
                                                  : "no changed word makes it say bad";
    line("what the command reads, asked with patched cores: " + found + " (" + std::to_string(d.changed_words) +
         " 8-byte words changed in the program's data and heap between checkpoints " + std::to_string(r.last_good) +
         " and " + std::to_string(r.first_bad) +
         (d.candidates < d.changed_words ? ", the first " + std::to_string(d.candidates) + " tried" : "") + "; " +
         std::to_string(d.probes) + " command runs, " + took + ")");
  }

  if (r.refined) {
    const Refined& f = *r.refined;
    line("refined: the invariant flips at moment " + f.moment + " in segment " + std::to_string(r.last_good) + ", just after " +
         (f.write_pc ? hex(f.write_pc) + " in " : std::string()) +
         where_text(f.write_function, f.write_file, f.write_line, f.write_pc) +
         (f.detail.empty() ? "" : ": " + f.detail));
    std::string watched;
    for (const auto& w : f.watched) watched += (watched.empty() ? "" : ", ") + w;
    line("  (watchpoints on " + watched + "; " + std::to_string(f.watch_hits) + " watchpoint stops, " +
         std::to_string(f.evaluations) + " evaluations)");
    line("stopped in " + where_text(f.at.function, f.at.file, f.at.line, f.at.pc));
    line("backtrace at " + f.moment + ":");
    for (size_t i = 0; i < f.at.backtrace.size(); i++) line(dump::format_frame(i, f.at.backtrace[i]));
  } else {
    if (r.outcome != Outcome::AlreadyBad)
      line("segment granularity: the invariant flipped somewhere in segment " + std::to_string(r.last_good) +
           " (between checkpoints " + std::to_string(r.last_good) + " and " + std::to_string(r.first_bad) +
           "); not refined: " + r.refine_note);
    const Location& l = r.at_first_bad;
    line("at checkpoint " + std::to_string(r.first_bad) + " the program is in " + where_text(l.function, l.file, l.line, l.pc));
    line("backtrace at checkpoint " + std::to_string(r.first_bad) + ":");
    for (size_t i = 0; i < l.backtrace.size(); i++) line(dump::format_frame(i, l.backtrace[i]));
    if (l.backtrace.empty() && !l.backtrace_error.empty()) line("  (no backtrace: " + l.backtrace_error + ")");
  }
  for (const auto& [expr, value] : r.shown) line("  " + expr + " = " + value);
  line("open GDB there: " + r.goto_command);
  if (!r.refined)
    line("or as a core: slsdbg dump " + r.recording + " --at " + std::to_string(r.first_bad) + " -o bad.core && gdb " + r.exe +
         " bad.core");
  if (!r.core_out.empty()) line("core of that point: " + r.core_out + " (gdb " + r.exe + " " + r.core_out + ")");
  char took[64];
  std::snprintf(took, sizeof took, "%.2f s", r.seconds);
  line(std::string("took ") + took);
  return out;
}

std::string format_report_json(const BisectReport& r) {
  nlohmann::json j;
  j["recording"] = r.recording;
  j["invariant"] = r.invariant;
  j["program"] = r.exe;
  j["outcome"] = outcome_name(r.outcome);
  j["checkpoints"] = r.checkpoints;
  j["range"] = {{"first", r.range_first}, {"last", r.range_last}, {"size", r.range_size}};
  j["probes"] = {{"search", r.search_probes}, {"edge", r.endpoint_probes}, {"spot_check", r.spot_probes},
                 {"total", r.probes.size()}, {"search_bound", r.search_bound}};
  nlohmann::json list = nlohmann::json::array();
  for (const auto& [id, p] : r.probes)
    list.push_back({{"checkpoint", id}, {"kind", kind_json(p.kind)},
                    {"verdict", p.evaluation.verdict == Verdict::Good ? "good" : "bad"},
                    {"detail", p.evaluation.detail}});
  j["probe_log"] = list;
  if (r.outcome != Outcome::NeverBad) {
    j["first_bad"] = {{"checkpoint", r.first_bad}, {"time_ns", r.first_bad_ns}, {"detail", r.first_bad_detail}};
    if (r.outcome != Outcome::AlreadyBad)
      j["last_good"] = {{"checkpoint", r.last_good}, {"time_ns", r.last_good_ns}};
    j["at_first_bad"] = location_json(r.at_first_bad);
    j["goto"] = r.goto_command;
  }
  if (r.outcome == Outcome::NotMonotone) j["not_monotone"] = {{"bad", r.witness_bad}, {"good_after", r.witness_good}};
  j["refinement"] = {{"state", refine_name(r.refine_state)}, {"note", r.refine_note}};
  if (r.refined) {
    const Refined& f = *r.refined;
    j["moment"] = f.moment;
    j["refined"] = {{"moment", f.moment},
                    {"write_pc", hex(f.write_pc)},
                    {"function", f.write_function},
                    {"file", f.write_file},
                    {"line", f.write_line},
                    {"detail", f.detail},
                    {"watch_hits", f.watch_hits},
                    {"evaluations", f.evaluations},
                    {"watched", f.watched},
                    {"at", location_json(f.at)}};
  } else if (r.outcome != Outcome::NeverBad) {
    j["moment"] = std::to_string(r.first_bad);
  }
  if (r.discovered) {
    const Discovered& d = *r.discovered;
    j["discovery"] = {{"regions", d.regions},   {"changed_words", d.changed_words}, {"candidates", d.candidates},
                      {"probes", d.probes},     {"outcome", d.outcome},             {"words", d.words},
                      {"seconds", d.seconds}};
  }
  nlohmann::json shown = nlohmann::json::object();
  for (const auto& [expr, value] : r.shown) shown[expr] = value;
  j["shown"] = shown;
  if (!r.core_out.empty()) j["core"] = r.core_out;
  j["seconds"] = r.seconds;
  return j.dump() + "\n";
}

}  // namespace slsdbg::bisect
