#include "engine/bisect/refine.h"

#include <cstring>
#include <set>

#include "engine/bisect/locate.h"
#include "engine/bisect/overlay_memory.h"
#include "engine/bisect/refine_narrow.h"
#include "engine/dump/recording_memory.h"
#include "engine/replay/timeline.h"
#include "engine/replay/unreadable_mappings.h"

namespace slsdbg::bisect {

bool refinement_built() { return true; }

namespace {

using replay::StopCause;

constexpr size_t kDebugRegisters = 4;
constexpr uint64_t kWatchLen = 8;
// --expr: one GDB evaluation (≈ 0.15 s) per this many watchpoint stops
// (≈ 0.5 ms each) bounds how far pass 1 runs past the flip.
constexpr size_t kBatch = 1024;
constexpr size_t kNarrowedLookEach = 16;

// The live replay's memory at the current moment.
class TimelineMemory final : public dump::MemorySource {
 public:
  explicit TimelineMemory(replay::Timeline& tl) : tl_(tl) {}
  Status read(uint64_t addr, std::span<uint8_t> out) override {
    size_t n = TRY(tl_.read_memory(addr, out));
    if (n < out.size()) return Error::msg("replay memory unreadable at " + std::to_string(addr + n));
    return ok_status();
  }

 private:
  replay::Timeline& tl_;
};

std::vector<uint64_t> watch_words(const std::vector<MemoryRange>& ranges) {
  std::set<uint64_t> words;
  for (const auto& r : ranges)
    for (uint64_t a = r.addr & ~(kWatchLen - 1); a < r.addr + r.len; a += kWatchLen) words.insert(a);
  return {words.begin(), words.end()};
}

std::string hex(uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

RefineOutcome failed(std::string note) {
  RefineOutcome out;
  out.state = RefineState::Failed;
  out.note = std::move(note);
  return out;
}

class Refiner {
 public:
  explicit Refiner(const RefineInput& in) : in_(in) {}
  RefineOutcome run();

 private:
  Status start();
  // Forward to the next watchpoint stop inside the segment; false when the
  // segment (and its closing checkpoint) is behind us.
  Result<bool> next_hit();
  Result<std::vector<uint8_t>> watched_bytes();
  // Xsave::No at every watchpoint stop (a plugin sees general registers);
  // Xsave::Yes for the answer's core.
  enum class Xsave { No, Yes };
  store::ProcessState live_state(Xsave xsave);
  Result<Evaluation> evaluate_overlay(size_t hit);
  Result<Evaluation> evaluate_bytes(const std::vector<uint8_t>& bytes, const std::string& name);
  // Pass 0 (refine_narrow.h): a later start for pass 1, where the invariant still holds.
  Status narrow();
  // Where pass 1 starts: from_, else the last good checkpoint.
  Status run_to_start();
  Result<Refined> describe_here(const Evaluation& e, std::string* core);
  std::string hit_name(uint64_t hit) const {
    return "watchpoint stop " + std::to_string(hit) + " of segment " + std::to_string(in_.last_good) +
           (from_ ? " after moment " + from_->to_string() : std::string());
  }
  void say(const std::string& s) {
    if (in_.progress) in_.progress(s);
  }

  const RefineInput& in_;
  std::unique_ptr<replay::Timeline> tl_;
  store::ProcessState first_bad_state_;
  std::vector<MemoryRange> ranges_;
  std::vector<std::vector<uint8_t>> copies_;  // --expr: watched bytes at each hit
  uint64_t hits_ = 0, evaluations_ = 0;
  std::optional<replay::Moment> from_;
};

Status Refiner::start() {
  replay::TimelineOptions options;
  if (in_.progress)
    options.progress = [this](std::string_view what, uint64_t done, uint64_t total) {
      say("refining: " + std::string(what) + " " + std::to_string(done) + "/" + std::to_string(total));
    };
  if (in_.interrupted) options.interrupted = in_.interrupted;
  tl_ = TRY_CTX(replay::Timeline::open(*in_.reader, options), "opening the replay timeline");
  first_bad_state_ = TRY(in_.reader->process_state(CheckpointId(in_.first_bad)));
  return ok_status();
}

Result<bool> Refiner::next_hit() {
  for (;;) {
    if (in_.interrupted && in_.interrupted()) return Error::msg("interrupted (SIGINT/SIGTERM)");
    replay::TimelineStop stop = TRY(tl_->resume(replay::Direction::Forward, replay::Motion::Continue));
    switch (stop.cause) {
      case StopCause::Signal: continue;  // resuming delivers it
      case StopCause::Exec: continue;    // a new image; the watched ranges may still be written
      case StopCause::Watchpoint: {
        uint64_t seg = tl_->current_segment().value;
        if (seg == in_.last_good) return true;
        if (seg != in_.first_bad) return false;
        // A write that is the segment's last instruction stops at the next checkpoint's start.
        replay::Moment m = TRY(tl_->current_moment());
        return m.event == 0 && m.n == 1 && !first_bad_state_.threads.empty() && m.pc == first_bad_state_.threads[0].regs.rip;
      }
      case StopCause::HistoryEnd:
      case StopCause::Exited: return false;
      case StopCause::Interrupted:
        return Error::msg("interrupted (SIGINT/SIGTERM)");
      case StopCause::Diverged:
        return Error::msg("replay diverged: " + (stop.divergence ? stop.divergence->describe() : std::string("?")));
      default:
        return Error::msg("unexpected stop at " + hex(stop.pc) + " while running forward to watchpoints");
    }
  }
}

Result<std::vector<uint8_t>> Refiner::watched_bytes() {
  std::vector<uint8_t> out;
  for (const auto& r : ranges_) {
    std::vector<uint8_t> b(r.len);
    size_t n = TRY(tl_->read_memory(r.addr, b));
    if (n < r.len) return Error::msg("watched memory unreadable at " + hex(r.addr + n));
    out.insert(out.end(), b.begin(), b.end());
  }
  return out;
}

store::ProcessState Refiner::live_state(Xsave with_xsave) {
  store::ProcessState s = *in_.last_good_state;
  auto regs = tl_->regs();
  if (regs.ok()) s.threads[0].regs = *regs;
  s.threads[0].restarted_syscall = false;
  // The map of this moment (the segment may have mapped and unmapped, as
  // posix_spawn's child stack), without contents where it cannot be read:
  // one unreadable mapping failed the whole core ("pread ... Input/output
  // error" refining make's segment).
  if (auto live = tl_->live_mappings(); live.ok() && !live->empty()) s.mappings = std::move(*live);
  replay::mark_unreadable_mappings(s.mappings, *tl_);
  if (with_xsave == Xsave::No) return s;
  auto xsave = tl_->xsave();
  if (xsave.ok() && !xsave->empty()) {
    s.threads[0].xsave = *xsave;
    if (xsave->size() >= sizeof(user_fpregs_struct)) std::memcpy(&s.threads[0].fpregs, xsave->data(), sizeof(user_fpregs_struct));
  }
  return s;
}

Result<Evaluation> Refiner::evaluate_overlay(size_t hit) { return evaluate_bytes(copies_[hit], hit_name(hit + 1)); }

Result<Evaluation> Refiner::evaluate_bytes(const std::vector<uint8_t>& bytes, const std::string& name) {
  dump::RecordingMemory base(*in_.reader, CheckpointId(in_.last_good));
  OverlayMemory memory(base, ranges_, bytes);
  evaluations_++;
  return in_.invariant->evaluate(
      StateView{in_.last_good_state, &memory, name + " (watched bytes over checkpoint " + std::to_string(in_.last_good) + ")"});
}

Status Refiner::run_to_start() {
  if (from_) TRY(tl_->goto_moment(*from_));
  else TRY(tl_->goto_checkpoint(CheckpointId(in_.last_good)));
  return ok_status();
}

Status Refiner::narrow() {
  NarrowInput n;
  n.timeline = tl_.get();
  n.segment = in_.last_good;
  n.say = [this](const std::string& s) { say(s); };
  n.bad_here = [this]() -> Result<bool> {
    if (in_.interrupted && in_.interrupted()) return Error::msg("interrupted (SIGINT/SIGTERM)");
    const std::string name = "a narrowing probe of segment " + std::to_string(in_.last_good);
    Evaluation e;
    if (in_.mode == Mode::Plugin) {
      store::ProcessState state = live_state(Xsave::No);
      TimelineMemory memory(*tl_);
      evaluations_++;
      e = TRY(in_.invariant->evaluate(StateView{&state, &memory, name}));
    } else {
      e = TRY(evaluate_bytes(TRY(watched_bytes()), name));
    }
    return e.verdict == Verdict::Bad;
  };
  Narrowed got = TRY(narrow_by_arrivals(n));
  from_ = got.from;
  if (from_)
    say("refining: the invariant holds at " + from_->to_string() + " (" + std::to_string(got.probes) + " probes over " +
        std::to_string(got.arrivals) + " arrivals); watching from there");
  return ok_status();
}

Result<Refined> Refiner::describe_here(const Evaluation& e, std::string* core) {
  Refined f;
  replay::Moment m = TRY(tl_->current_moment());
  f.moment = m.to_string();
  store::ProcessState state = live_state(Xsave::Yes);
  TimelineMemory memory(*tl_);
  f.at = locate(state, memory);
  f.detail = e.detail;
  f.watch_hits = hits_;
  f.evaluations = evaluations_;
  for (const auto& r : ranges_)
    f.watched.push_back((r.name.empty() ? hex(r.addr) : r.name + " (" + hex(r.addr) + ")") + ", " + std::to_string(r.len) + " bytes");
  describe_write(state, memory, f);  // execution stands right after the write
  StateView here{&state, &memory, f.moment};
  *core = TRY(write_core_of(here, *in_.scratch, "answer.core"));
  return f;
}

RefineOutcome Refiner::run() {
  ranges_ = in_.watch.ranges;
  std::vector<uint64_t> words = watch_words(ranges_);
  if (words.size() > kDebugRegisters) {
    RefineOutcome out;
    out.state = RefineState::Unavailable;
    out.note = "the invariant reads " + std::to_string(words.size()) + " 8-byte words; the CPU has " +
               std::to_string(kDebugRegisters) + " debug registers";
    return out;
  }
  auto started = start();
  if (!started.ok()) return failed(started.error().message);
  if (auto s = run_to_start(); !s.ok()) return failed("going to checkpoint " + std::to_string(in_.last_good) + ": " + s.error().message);
  for (uint64_t w : words)
    if (auto s = tl_->add_watchpoint(replay::WatchKind::Write, w, kWatchLen); !s.ok()) {
      // The Timeline shares the debug registers with its own navigation and
      // may offer fewer than the CPU has: that is a limit, not a failure.
      RefineOutcome out;
      out.state = RefineState::Unavailable;
      out.note = "the invariant reads " + std::to_string(words.size()) + " 8-byte words and the replay cannot watch them all (" +
                 s.error().message + ")";
      return out;
    }
  // Pass 0: start pass 1 late in the segment where that is known to be good.
  if (auto s = narrow(); !s.ok()) {
    say("refining: narrowing failed (" + s.error().message + "); watching the whole segment");
    from_.reset();
  }
  if (auto s = run_to_start(); !s.ok()) return failed("going to " + (from_ ? from_->to_string() : "checkpoint " + std::to_string(in_.last_good)) + ": " + s.error().message);

  // Pass 1: the watchpoint stops of the segment. --expr looks at every
  // kBatch-th copy on the way, so the pass ends within a batch of the flip.
  std::optional<Evaluation> found;
  long known_good = -1;  // copies: the last seen good (-1: the checkpoint itself)
  std::optional<long> known_bad;
  for (;;) {
    auto more = next_hit();
    if (!more.ok()) return failed(more.error().message);
    if (!*more) break;
    hits_++;
    if (hits_ % 4096 == 0) say("refining: " + std::to_string(hits_) + " watchpoint stops in segment " + std::to_string(in_.last_good));
    if (in_.mode == Mode::Plugin) {
      // current_moment() may re-execute to count: only the answer gets one.
      store::ProcessState state = live_state(Xsave::No);
      TimelineMemory memory(*tl_);
      evaluations_++;
      auto e = in_.invariant->evaluate(StateView{&state, &memory, hit_name(hits_)});
      if (!e.ok()) return failed(e.error().message);
      if (e->verdict == Verdict::Bad) {
        found = *e;
        break;
      }
    } else {
      auto bytes = watched_bytes();
      if (!bytes.ok()) return failed(bytes.error().message);
      copies_.push_back(std::move(*bytes));
      // After narrowing the flip is a few stops away: look at each of the first ones.
      if (copies_.size() % kBatch == 0 || (from_ && copies_.size() <= kNarrowedLookEach)) {
        long last = static_cast<long>(copies_.size()) - 1;
        auto e = evaluate_overlay(static_cast<size_t>(last));
        if (!e.ok()) return failed(e.error().message);
        if (e->verdict == Verdict::Bad) {
          known_bad = last;
          break;
        }
        known_good = last;
      }
    }
  }

  if (in_.mode != Mode::Plugin) {
    // Pass 2: binary search over the copies, then replay to the first bad stop.
    if (copies_.empty()) return failed("no write to the watched memory in segment " + std::to_string(in_.last_good));
    if (!known_bad) {
      long last = static_cast<long>(copies_.size()) - 1;
      auto e = evaluate_overlay(static_cast<size_t>(last));
      if (!e.ok()) return failed(e.error().message);
      if (e->verdict == Verdict::Good)
        return failed("the watched memory alone never makes the invariant false in segment " + std::to_string(in_.last_good) +
                      " (it depends on something not watched)");
      known_bad = last;
    }
    long lo = known_good, hi = *known_bad;
    while (hi - lo > 1) {
      long mid = lo + (hi - lo) / 2;
      auto e = evaluate_overlay(static_cast<size_t>(mid));
      if (!e.ok()) return failed(e.error().message);
      if (e->verdict == Verdict::Good) lo = mid; else hi = mid;
    }
    if (auto s = run_to_start(); !s.ok()) return failed(s.error().message);
    for (long n = 0; n <= hi; n++) {
      auto more = next_hit();
      if (!more.ok()) return failed(more.error().message);
      if (!*more) return failed("replaying to watchpoint stop " + std::to_string(hi + 1) + " left the segment early (replay not deterministic?)");
    }
    store::ProcessState state = live_state(Xsave::No);
    TimelineMemory memory(*tl_);
    evaluations_++;
    auto e = in_.invariant->evaluate(StateView{&state, &memory, hit_name(static_cast<uint64_t>(hi) + 1)});
    if (!e.ok()) return failed(e.error().message);
    if (e->verdict != Verdict::Bad) return failed("the invariant holds on the real state at the stop where the watched bytes made it false");
    found = *e;
  }
  if (!found)
    return failed("no watched write made the invariant false before checkpoint " + std::to_string(in_.first_bad) +
                  " (it depends on something not watched)");
  RefineOutcome out;
  std::string core;
  auto f = describe_here(*found, &core);
  if (!f.ok()) return failed(f.error().message);
  out.state = RefineState::Done;
  out.refined = *f;
  out.answer_core = core;
  return out;
}

}  // namespace

RefineOutcome refine_segment(const RefineInput& input) {
  Refiner r(input);
  return r.run();
}

}  // namespace slsdbg::bisect
