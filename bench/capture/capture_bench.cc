// bench/capture: checkpoint stop time of a tracee with a 1 GiB heap dirtying
// 4 MiB per 10 ms. Every period: PTRACE_INTERRUPT, capture(), resume; the
// stop time is the capture() duration (what the tracee waits for). Recorder
// and tracee share one CPU (DESIGN.md). Prints JSON.
//   capture_bench HEAP_PROGRAM [--checkpoints N] [--heap-mib M] [--dirty-kib K] [--tracker uffd|hash]
//                 [--copy-threads 1|2] [--copy-path pvr|tracee] [--state-cache on|off]
// --state-cache on (the default) reports activity as the recorder does: the
// heap program's only syscall between checkpoints is nanosleep, which changes
// nothing capture caches (handlers, brk, fds, cwd, the map), so after its
// setup nothing is reported and capture reuses that state.
#include <sched.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "process/spawn.h"
#include "recorder/capture/checkpoint_capture.h"

using namespace slsdbg;

namespace {

double pct(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t i = std::min(v.size() - 1, static_cast<size_t>(p / 100.0 * (v.size() - 1) + 0.5));
  return v[i];
}

Status stop(process::Task& t) {
  TRY(t.interrupt());
  for (;;) {
    auto w = TRY(t.wait());
    if (!w.stopped()) return Error::msg("tracee ended");
    if (w.kind == process::StopKind::PtraceEvent && w.event == PTRACE_EVENT_STOP) return ok_status();
    TRY(t.cont(w.kind == process::StopKind::SignalDelivery ? w.signo : 0));
  }
}

int fail(const std::string& what) {
  fprintf(stderr, "capture_bench: %s\n", what.c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return fail("usage: capture_bench HEAP_PROGRAM [--checkpoints N] [--heap-mib M] [--dirty-kib K] [--tracker uffd|hash]");
  std::string prog = argv[1];
  int checkpoints = 300;
  std::string heap_mib = "1024", dirty_kib = "4096", tracker = "uffd";
  int copy_threads = 1;
  std::string copy_path = "pvr";
  std::string state_cache = "on";
  for (int i = 2; i + 1 < argc; i += 2) {
    std::string k = argv[i], v = argv[i + 1];
    if (k == "--checkpoints") checkpoints = std::stoi(v);
    else if (k == "--heap-mib") heap_mib = v;
    else if (k == "--dirty-kib") dirty_kib = v;
    else if (k == "--tracker") tracker = v;
    else if (k == "--copy-threads") copy_threads = std::stoi(v);
    else if (k == "--copy-path") copy_path = v;
    else if (k == "--state-cache") state_cache = v;
    else return fail("unknown option " + k);
  }
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(sched_getcpu() >= 0 ? sched_getcpu() : 0, &set);
  if (sched_setaffinity(0, sizeof set, &set) != 0) return fail(std::string("sched_setaffinity: ") + strerror(errno));

  int ready[2];
  if (pipe(ready) != 0) return fail("pipe");
  process::SpawnOptions opts;
  opts.argv = {prog, heap_mib, dirty_kib, "10000"};
  for (char** e = environ; *e; ++e) opts.env.emplace_back(*e);
  opts.env.emplace_back("GLIBC_TUNABLES=glibc.pthread.rseq=0");
  opts.in_child_before_exec = [&]() -> Status {
    if (dup2(ready[1], 1) < 0) return Error::from_errno("dup2");
    return ok_status();
  };
  auto task = process::spawn_traced(opts);
  close(ready[1]);
  if (!task.ok()) return fail(task.error().message);
  // Set up tracking at the exec stop (before the heap exists), as the recorder does.
  auto cap = recorder::CheckpointCapture::create(task->tgid(), tracker == "hash" ? recorder::TrackerChoice::PageHash
                                                                                  : recorder::TrackerChoice::UffdWp,
                                                recorder::CaptureOptions{
                                                    copy_path == "tracee" ? recorder::CopyPath::InTracee
                                                                          : recorder::CopyPath::ProcessVmReadv,
                                                    copy_threads == 1 ? recorder::CopyThreads::One
                                                                      : recorder::CopyThreads::Two,
                                                    state_cache == "on"});
  if (!cap.ok()) return fail(cap.error().message);
  auto first = (*cap)->capture({task->tgid()});
  if (!first.ok()) return fail(first.error().message);
  if (!task->cont().ok()) return fail("cont");
  char c;
  if (read(ready[0], &c, 1) != 1) return fail("tracee did not get ready");
  // The tracee is running with its heap populated. Checkpoint 1 copies it all.
  if (!stop(*task).ok()) return fail("stop");
  (*cap)->note_tracee_activity();  // its setup: mmap, madvise, write
  auto full = (*cap)->capture({task->tgid()});
  if (!full.ok()) return fail(full.error().message);
  auto full_stats = (*cap)->last_stats();
  if (!task->cont().ok()) return fail("cont");

  std::vector<double> total, collect, copy, state, pages;
  int reused = 0;
  // Checkpoints start every 10 ms (deadline based, as the recorder's tick).
  auto next = std::chrono::steady_clock::now();
  for (int i = 0; i < checkpoints; ++i) {
    next += std::chrono::milliseconds(10);
    std::this_thread::sleep_until(next);
    if (auto s = stop(*task); !s.ok()) return fail(s.error().message);
    auto in = (*cap)->capture({task->tgid()});
    if (!in.ok()) return fail(in.error().message);
    auto st = (*cap)->last_stats();
    total.push_back(st.total_ns / 1e6);
    collect.push_back(st.collect_ns / 1e6);
    copy.push_back(st.copy_ns / 1e6);
    state.push_back(st.state_ns / 1e6);
    pages.push_back(static_cast<double>(st.pages));
    reused += st.state_reused;
    if (!task->cont().ok()) return fail("cont");
  }
  task->kill_and_reap();
  printf("{\n  \"copy_path\": \"%s\",\n", copy_path == "tracee" ? "in-tracee stub" : "process_vm_readv");
  printf("  \"tracker\": \"%s\", \"copy_threads\": %d, \"heap_mib\": %s, \"dirty_kib_per_10ms\": %s, \"checkpoints\": %d,\n",
         (*cap)->tracker_name(), copy_threads, heap_mib.c_str(), dirty_kib.c_str(), checkpoints);
  printf("  \"full_capture\": {\"pages\": %llu, \"ms\": %.2f, \"collect_ms\": %.2f, \"copy_ms\": %.2f},\n",
         (unsigned long long)full_stats.pages, full_stats.total_ns / 1e6, full_stats.collect_ns / 1e6, full_stats.copy_ns / 1e6);
  printf("  \"dirty_pages\": {\"p50\": %.0f, \"p99\": %.0f},\n", pct(pages, 50), pct(pages, 99));
  printf("  \"stop_ms\": {\"p50\": %.3f, \"p99\": %.3f, \"max\": %.3f},\n", pct(total, 50), pct(total, 99), pct(total, 100));
  printf("  \"state_ms\": {\"p50\": %.3f, \"p99\": %.3f, \"reused\": %d},\n", pct(state, 50), pct(state, 99), reused);
  printf("  \"collect_ms\": {\"p50\": %.3f, \"p99\": %.3f},\n", pct(collect, 50), pct(collect, 99));
  printf("  \"copy_ms\": {\"p50\": %.3f, \"p99\": %.3f},\n", pct(copy, 50), pct(copy, 99));
  printf("  \"goal\": {\"stop_ms_p50\": 1.0, \"stop_ms_p99\": 3.0}\n}\n");
  return 0;
}
