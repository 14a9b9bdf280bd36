// bench/ui driver. `ui_bench make SRC DST N`: a synthetic recording of N
// checkpoints written through the store's writer from a small real one
// (SRC's pages as checkpoint 0, then one changed stack page per checkpoint).
// `ui_bench time REC`: ms to a usable main window, and per-step refresh times
// of every pane (go_to), as one JSON line.
#include <QApplication>
#include <QElapsedTimer>
#include <algorithm>
#include <cstdio>
#include <map>
#include <random>

#include "ui/app/main_window.h"

using namespace slsdbg;

static int make(const char* src_dir, const char* dst, uint64_t n) {
  auto src = store::RecordingReader::open(src_dir);
  if (!src.ok()) return std::fprintf(stderr, "ui_bench: %s\n", src.error().message.c_str()), 1;
  auto cps = (*src)->checkpoints();
  if (cps.size() < 3) return std::fprintf(stderr, "ui_bench: source too short\n"), 1;
  uint64_t last = cps.size() - 2;  // running, not exited
  std::map<uint64_t, std::vector<uint8_t>> pages;
  for (uint64_t k = 0; k <= last; ++k) {
    auto st = (*src)->for_each_dirty_page(CheckpointId(k), [&](uint64_t va, std::span<const uint8_t> d) {
      pages[va].assign(d.begin(), d.end());
      return ok_status();
    });
    if (!st.ok()) return std::fprintf(stderr, "ui_bench: %s\n", st.error().message.c_str()), 1;
  }
  auto state = (*src)->process_state(CheckpointId(last));
  if (!state.ok()) return 1;
  auto w = store::RecordingWriter::create(dst, (*src)->meta());
  if (!w.ok()) return std::fprintf(stderr, "ui_bench: %s\n", w.error().message.c_str()), 1;
  store::CheckpointInput in;
  in.state = *state;
  for (auto& [va, d] : pages) in.dirty.push_back({va, d.data()});
  if (!(*w)->add_checkpoint(in, "start").ok()) return 1;
  uint64_t stack_page = state->threads[0].regs.rsp & ~uint64_t(4095);
  std::vector<uint8_t> page = pages.count(stack_page) ? pages[stack_page] : std::vector<uint8_t>(4096);
  for (uint64_t k = 1; k < n; ++k) {
    store::CheckpointInput c;
    c.time_ns = k * 1'000'000;
    c.stop_ns = 100'000 + (k % 37) * 5'000;
    c.state = *state;
    c.state.threads[0].regs.rax = k;
    page[(k * 8) % 4096] = uint8_t(k);
    c.dirty.push_back({stack_page, page.data()});
    auto r = (*w)->add_checkpoint(c, "tick");
    if (!r.ok()) return std::fprintf(stderr, "ui_bench: %s\n", r.error().message.c_str()), 1;
  }
  return (*w)->finish().ok() ? 0 : 1;
}

static int time_ui(int argc, char** argv, const char* rec) {
  QApplication app(argc, argv);
  QElapsedTimer t;
  t.start();
  auto h = ui::open_history(rec);
  if (!h.ok()) return std::fprintf(stderr, "ui_bench: %s\n", h.error().message.c_str()), 1;
  size_t n = h->checkpoints.size();
  ui::MainWindow w(std::move(*h));
  w.show();
  app.processEvents();
  double open_ms = t.nsecsElapsed() / 1e6;
  std::vector<double> steps;
  std::mt19937 rng(1);
  for (int i = 0; i < 200; ++i) {
    uint64_t k = i % 2 ? w.current() + 1 : rng() % n;  // next, and random jumps
    if (k >= n) k = 0;
    t.restart();
    w.go_to(k);
    app.processEvents();  // repaint every pane
    steps.push_back(t.nsecsElapsed() / 1e6);
  }
  // The model's share of a move (ui/model/moment.cc, no widgets).
  std::vector<double> model;
  for (int i = 0; i < 50; ++i) {
    t.restart();
    auto m = ui::load_moment(*w.history().reader, rng() % n);
    model.push_back(t.nsecsElapsed() / 1e6);
  }
  std::sort(model.begin(), model.end());
  std::sort(steps.begin(), steps.end());
  std::printf("{\"checkpoints\":%zu,\"open_ms\":%.1f,\"step_p50_ms\":%.2f,\"step_p95_ms\":%.2f,\"step_max_ms\":%.2f,\"model_p50_ms\":%.2f}\n", n,
              open_ms, steps[steps.size() / 2], steps[steps.size() * 95 / 100], steps.back(),
              model[model.size() / 2]);
  return 0;
}

int main(int argc, char** argv) {
  if (argc == 5 && std::string(argv[1]) == "make") return make(argv[2], argv[3], std::strtoull(argv[4], nullptr, 10));
  if (argc == 3 && std::string(argv[1]) == "time") return time_ui(argc, argv, argv[2]);
  std::fprintf(stderr, "usage: ui_bench make SRC DST N | ui_bench time REC\n");
  return 2;
}
