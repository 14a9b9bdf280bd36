#include "engine/bisect/refine_threads.h"

#include <cstdio>
#include <set>

#include "engine/bisect/locate.h"
#include "engine/replay/thread_watch.h"
#include "engine/replay/threaded_state.h"

namespace slsdbg::bisect {

namespace {

using replay::StopCause;

constexpr uint64_t kWatchLen = 8;

std::string hex(uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

RefineOutcome with(RefineState state, std::string note) {
  RefineOutcome out;
  out.state = state;
  out.note = std::move(note);
  return out;
}

Result<RefineOutcome> refine(const RefineInput& in) {
  std::set<uint64_t> words;
  for (const MemoryRange& r : in.watch.ranges)
    for (uint64_t a = r.addr & ~(kWatchLen - 1); a < r.addr + r.len; a += kWatchLen) words.insert(a);
  if (words.size() > replay::kMaxThreadWatches)
    return with(RefineState::Unavailable, "the invariant reads " + std::to_string(words.size()) +
                                              " 8-byte words; a replay with threads watches at most " +
                                              std::to_string(replay::kMaxThreadWatches));
  auto tl = TRY_CTX(replay::ThreadedTimeline::open(*in.reader, in.interrupted), "opening the threaded replay");
  TRY_CTX(tl->goto_checkpoint(CheckpointId(in.last_good)), "going to checkpoint " + std::to_string(in.last_good));
  for (uint64_t w : words) TRY(tl->add_watchpoint(replay::WatchKind::Write, w, kWatchLen));
  uint64_t hits = 0, evaluations = 0;
  for (;;) {
    if (in.interrupted && in.interrupted()) return Error::msg("interrupted (SIGINT/SIGTERM)");
    const replay::ThreadedStop stop = TRY(tl->resume(replay::Direction::Forward, replay::Motion::Continue, Tid{}));
    if (stop.stop.cause == StopCause::Interrupted) return Error::msg("interrupted (SIGINT/SIGTERM)");
    if (stop.stop.cause == StopCause::Diverged)
      return Error::msg("replay diverged: " + (stop.stop.divergence ? stop.stop.divergence->describe() : std::string("?")));
    if (stop.stop.cause != StopCause::Watchpoint || tl->current_segment().value != in.last_good) break;
    hits++;
    store::ProcessState state = TRY(replay::threaded_live_state(*tl, *in.reader, stop.thread));
    replay::ThreadedMemory memory(*tl);
    evaluations++;
    const std::string where = tl->position_text();
    const Evaluation e = TRY(in.invariant->evaluate(StateView{&state, &memory, where}));
    if (e.verdict != Verdict::Bad) continue;
    Refined f;
    f.moment = where;
    f.at = locate(state, memory);
    f.detail = e.detail;
    f.watch_hits = hits;
    f.evaluations = evaluations;
    for (const MemoryRange& r : in.watch.ranges)
      f.watched.push_back((r.name.empty() ? hex(r.addr) : r.name + " (" + hex(r.addr) + ")") + ", " +
                          std::to_string(r.len) + " bytes");
    describe_write(state, memory, f);
    RefineOutcome out;
    out.state = RefineState::Done;
    out.answer_core = TRY(write_core_of(StateView{&state, &memory, where}, *in.scratch, "answer.core"));
    out.refined = std::move(f);
    return out;
  }
  return with(RefineState::Failed, "no watched write made the invariant false before checkpoint " +
                                       std::to_string(in.first_bad) + " (" + std::to_string(hits) +
                                       " writes seen; it depends on something not watched)");
}

}  // namespace

RefineOutcome refine_threaded_segment(const RefineInput& input) {
  auto r = refine(input);
  if (!r.ok()) return with(RefineState::Failed, r.error().message);
  return std::move(*r);
}

}  // namespace slsdbg::bisect
