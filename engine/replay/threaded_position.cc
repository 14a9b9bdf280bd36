#include "engine/replay/threaded_position.h"

#include <charconv>

namespace slsdbg::replay {

namespace {

std::string hex(uint64_t v) {
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof buf, v, 16);
  return "0x" + std::string(buf, r.ptr);
}

const char* kind_name(WatchKind k) {
  switch (k) {
    case WatchKind::Write: return "write";
    case WatchKind::Read: return "read";
    case WatchKind::Access: return "access";
  }
  return "write";
}

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  for (;;) {
    size_t at = s.find(sep);
    out.push_back(s.substr(0, at));
    if (at == std::string_view::npos) return out;
    s.remove_prefix(at + 1);
  }
}

Result<uint64_t> number(std::string_view s, std::string_view what) {
  int base = 10;
  if (s.starts_with("0x")) {
    s.remove_prefix(2);
    base = 16;
  }
  uint64_t v = 0;
  auto r = std::from_chars(s.data(), s.data() + s.size(), v, base);
  if (s.empty() || r.ec != std::errc() || r.ptr != s.data() + s.size())
    return Error::msg(std::string(what) + " is not a number");
  return v;
}

Result<Tid> thread_id(std::string_view s) {
  const uint64_t v = TRY(number(s, "the thread id"));
  if (v == 0 || v > 0x7fffffff) return Error::msg("the thread id is out of range");
  return Tid(static_cast<int32_t>(v));
}

Result<WatchRange> watch_range(std::string_view s) {
  std::vector<std::string_view> f = split(s, '/');
  if (f.size() != 3) return Error::msg("watch= needs KIND/LEN/0xADDR");
  WatchRange w;
  if (f[0] == "write") w.kind = WatchKind::Write;
  else if (f[0] == "read") w.kind = WatchKind::Read;
  else if (f[0] == "access") w.kind = WatchKind::Access;
  else return Error::msg("watch kind '" + std::string(f[0]) + "' is not write, read or access");
  w.len = TRY(number(f[1], "the watched length"));
  w.addr = TRY(number(f[2], "the watched address"));
  if (w.len != 1 && w.len != 2 && w.len != 4 && w.len != 8) return Error::msg("the watched length is not 1, 2, 4 or 8");
  return w;
}

}  // namespace

std::string ThreadedPosition::to_string() const {
  std::string s = std::to_string(k);
  if (end) s += ":end";
  else if (resume_m) s += ":t=" + std::to_string(tid.value) + ":resume=" + std::to_string(resume_m);
  else if (event) s += ":t=" + std::to_string(tid.value) + ":event=" + std::to_string(*event) + (entry ? ":entry" : "");
  else if (n) {
    s += ":t=" + std::to_string(tid.value) + ":pc=" + hex(pc) + ":n=" + std::to_string(n);
    if (watch) s += std::string(":watch=") + kind_name(watch->kind) + "/" + std::to_string(watch->len) + "/" + hex(watch->addr);
  }
  if (steps.empty()) return s;
  // Runs of the same thread; the anchor's own thread needs no name.
  s += ":steps=";
  const bool own = !end && (n || resume_m || event);  // t= was written
  for (size_t i = 0; i < steps.size();) {
    size_t j = i;
    while (j < steps.size() && steps[j] == steps[i]) ++j;
    if (i) s += ",";
    if (own && steps[i] == tid && i == 0 && j == steps.size()) s += std::to_string(j - i);
    else s += std::to_string(steps[i].value) + "x" + std::to_string(j - i);
    i = j;
  }
  return s;
}

namespace {

Result<std::vector<Tid>> step_runs(std::string_view value, Tid own) {
  std::vector<Tid> steps;
  for (std::string_view run : split(value, ',')) {
    const size_t x = run.find('x');
    Tid who = own;
    std::string_view count = run;
    if (x != std::string_view::npos) {
      who = TRY(thread_id(run.substr(0, x)));
      count = run.substr(x + 1);
    }
    if (who.value == 0) return Error::msg("steps without a thread (write TIDxCOUNT)");
    const uint64_t c = TRY(number(count, "the step count"));
    if (c == 0 || c > 10'000'000) return Error::msg("a step count must be 1 to 10000000");
    steps.insert(steps.end(), c, who);
  }
  return steps;
}

Result<ThreadedPosition> parse_fields(std::string_view text) {
  ThreadedPosition p;
  std::vector<std::string_view> f = split(text, ':');
  p.k = TRY(number(f[0], "the checkpoint"));
  bool have_pc = false, have_n = false;
  std::string_view steps;
  for (size_t i = 1; i < f.size(); ++i) {
    const std::string_view field = f[i];
    if (field == "end") {
      p.end = true;
      continue;
    }
    if (field == "entry") {
      p.entry = true;
      continue;
    }
    const size_t eq = field.find('=');
    if (eq == std::string_view::npos && i == 1 && number(field, "").ok())
      return Error::msg("K:E:0xPC:N names a moment of a recording without threads; with threads a moment is "
                        "K:t=TID:pc=0xPC:n=N, as `monitor when` prints it");
    if (eq == std::string_view::npos) return Error::msg("'" + std::string(field) + "' is not end or NAME=VALUE");
    const std::string_view key = field.substr(0, eq), value = field.substr(eq + 1);
    if (key == "t") {
      p.tid = TRY(thread_id(value));
    } else if (key == "pc") {
      p.pc = TRY(number(value, "pc"));
      have_pc = true;
    } else if (key == "n") {
      p.n = TRY(number(value, "n"));
      have_n = true;
    } else if (key == "resume") {
      p.resume_m = TRY(number(value, "resume"));
    } else if (key == "event") {
      p.event = TRY(number(value, "event"));
    } else if (key == "watch") {
      p.watch = TRY(watch_range(value));
    } else if (key == "steps") {
      steps = value;  // after t=, wherever it stands
    } else {
      return Error::msg("unknown field '" + std::string(key) + "'");
    }
  }
  if (!steps.empty()) p.steps = TRY(step_runs(steps, p.tid));
  const bool arrival = have_pc || have_n || p.watch;
  if (p.end && (arrival || p.resume_m || p.tid.value)) return Error::msg("end takes no thread, pc, n or resume");
  if (arrival && (!have_pc || !have_n || p.n == 0)) return Error::msg("an arrival needs pc= and n= (n >= 1)");
  if (arrival && p.resume_m) return Error::msg("give either pc=/n= or resume=, not both");
  if ((arrival || p.resume_m) && p.tid.value == 0) return Error::msg("an arrival or resume needs t=TID");
  if (p.entry && !p.event) return Error::msg("entry needs event=E");
  if (p.event && (p.end || arrival || p.resume_m)) return Error::msg("give event= alone, not with end, pc=/n= or resume=");
  if (p.event && p.tid.value == 0) return Error::msg("an event needs t=TID");
  if (!arrival && !p.resume_m && !p.event && !p.end && p.tid.value && p.steps.empty())
    return Error::msg("t= needs pc=/n=, resume=, event= or steps=");
  return p;
}

}  // namespace

Result<ThreadedPosition> ThreadedPosition::parse(std::string_view text) {
  auto p = parse_fields(text);
  if (!p.ok()) return p.error().context("position '" + std::string(text) + "'");
  return p;
}

}  // namespace slsdbg::replay
