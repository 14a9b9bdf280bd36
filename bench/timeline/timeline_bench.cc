// Timeline navigation latencies on a recording of
// tests/programs/timeline_counter (bench/timeline/run.sh makes it): goto a
// checkpoint, goto a moment in the middle of a segment, reverse-continue
// across the whole recording to a breakpoint hit once near its start, and
// reverse-stepi; each with and without session snapshots. One JSON object.
// usage: timeline_bench REC BREAK_ADDR [RUNS]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "engine/replay/timeline.h"

using namespace slsdbg;
using namespace slsdbg::replay;

namespace {

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

[[noreturn]] void die(const std::string& what) {
  std::fprintf(stderr, "timeline_bench: %s\n", what.c_str());
  std::exit(1);
}

template <typename T>
T must(Result<T> r, const char* what) {
  if (!r.ok()) die(std::string(what) + ": " + r.error().message);
  return std::move(*r);
}

struct Numbers {
  double goto_checkpoint_ms, goto_checkpoint_again_ms, goto_moment_ms, reverse_continue_ms, reverse_stepi_ms;
};

Numbers measure(const store::RecordingReader& reader, uint64_t bp, size_t snapshots, int runs) {
  TimelineOptions o;
  o.max_snapshots = snapshots;
  auto tl = must(Timeline::open(reader, o), "open");
  const uint64_t last = tl->checkpoint_count() - 1;
  std::vector<double> gc, gc2, gm, rc, rs;
  // The moment of the breakpoint's (only) hit, near the recording's start.
  if (!tl->add_breakpoint(bp).ok()) die("add_breakpoint");
  must(tl->resume(Direction::Forward, Motion::Continue), "continue");
  const Moment first = must(tl->current_moment(), "current_moment");
  for (int i = 0; i < runs; i++) {
    auto t0 = std::chrono::steady_clock::now();
    must(tl->goto_checkpoint(CheckpointId(1 + i)), "goto_checkpoint");
    gc.push_back(ms_since(t0));
    t0 = std::chrono::steady_clock::now();
    must(tl->goto_checkpoint(CheckpointId(1 + i)), "goto_checkpoint");
    gc2.push_back(ms_since(t0));
    t0 = std::chrono::steady_clock::now();
    must(tl->goto_moment(first), "goto_moment");
    gm.push_back(ms_since(t0));
    // From the last checkpoint back to the first hit: every segment re-run.
    must(tl->goto_checkpoint(CheckpointId(last)), "goto_checkpoint");
    t0 = std::chrono::steady_clock::now();
    TimelineStop st = must(tl->resume(Direction::Backward, Motion::Continue), "reverse-continue");
    rc.push_back(ms_since(t0));
    if (st.cause != StopCause::Breakpoint) die("reverse-continue did not stop at the breakpoint");
    for (int s = 0; s < 5; s++) must(tl->resume(Direction::Forward, Motion::Step), "stepi");
    for (int s = 0; s < 5; s++) {
      t0 = std::chrono::steady_clock::now();
      must(tl->resume(Direction::Backward, Motion::Step), "reverse-stepi");
      rs.push_back(ms_since(t0));
    }
  }
  return {median(gc), median(gc2), median(gm), median(rc), median(rs)};
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) die("usage: timeline_bench REC BREAK_ADDR [RUNS]");
  const uint64_t bp = std::strtoull(argv[2], nullptr, 0);
  const int runs = argc > 3 ? std::atoi(argv[3]) : 5;
  auto reader = must(store::RecordingReader::open(argv[1]), "open recording");
  const Numbers with = measure(*reader, bp, 16, runs);
  const Numbers without = measure(*reader, bp, 0, runs);
  std::printf(
      "{\"checkpoints\":%zu,\"runs\":%d,\"median_ms\":{"
      "\"snapshots\":{\"goto_checkpoint\":%.2f,\"goto_checkpoint_again\":%.2f,\"goto_moment\":%.2f,\"reverse_continue_whole_recording\":%.2f,"
      "\"reverse_stepi\":%.2f},"
      "\"restore_only\":{\"goto_checkpoint\":%.2f,\"goto_checkpoint_again\":%.2f,\"goto_moment\":%.2f,\"reverse_continue_whole_recording\":%.2f,"
      "\"reverse_stepi\":%.2f}}}\n",
      reader->checkpoints().size(), runs, with.goto_checkpoint_ms, with.goto_checkpoint_again_ms, with.goto_moment_ms, with.reverse_continue_ms,
      with.reverse_stepi_ms, without.goto_checkpoint_ms, without.goto_checkpoint_again_ms, without.goto_moment_ms, without.reverse_continue_ms,
      without.reverse_stepi_ms);
  return 0;
}
