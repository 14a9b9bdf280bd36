#include "engine/restore/restore.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <chrono>
#include <map>
#include <cstdlib>

#include "engine/restore/lazy_fill.h"
#include "engine/restore/restore_plan.h"
#include "engine/restore/restore_steps.h"
#include "process/inject.h"
#include "process/spawn.h"
#include "store/pack_layout.h"

#ifndef SLSDBG_RESTORER_BUILD_PATH
#define SLSDBG_RESTORER_BUILD_PATH ""
#endif

namespace slsdbg::restore {

namespace {

uint64_t now_ns() {
  return uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(
                      std::chrono::steady_clock::now().time_since_epoch())
                      .count());
}

InjectArea inject_area() { return InjectArea{process::kInjectPageAddr, process::kInjectAreaSize}; }

// The Signal events at the start of segment k (none when the recording has
// no event log for it, e.g. the last checkpoint or one made without the recorder).
std::vector<store::Event> leading_signal_events(const store::RecordingReader& reader, CheckpointId k) {
  std::vector<store::Event> out;
  auto events = reader.segment_events(segment_after(k));
  if (!events.ok()) return out;
  for (const auto& ev : *events) {
    if (ev.kind != store::EventKind::Signal) break;
    out.push_back(ev);
  }
  return out;
}

bool executable(const std::string& p) { return !p.empty() && ::access(p.c_str(), X_OK) == 0; }

Status restore_into(process::Task& task, const store::RecordingReader& reader, CheckpointId k,
                    const store::ProcessState& state, RestorePlan& plan, LazyFiller* lazy, FdNumbers fd_numbers,
                    std::vector<RestoredThread>* threads, RestoreReport& report) {
  RestoreTimings& t = report.timings;
  uint64_t t0 = now_ns();
  TRY_CTX(process::install_injection_page(task), "installing the injection page");
  RemoteCalls rc(task);
  uint64_t t1 = now_ns();
  t.spawn_ns += t1 - t0;

  TRY_CTX(unmap_restorer(rc, inject_area(), plan), "removing the restorer");
  TRY_CTX(map_kernel_vdso(rc, reader, k, plan), "mapping the vDSO");
  TRY(map_regions(rc, plan, report));
  if (lazy) TRY_CTX(lazy->attach(rc, mark_lazy_regions(plan)), "setting up lazy fill");
  uint64_t t2 = now_ns();
  t.map_ns = t2 - t1;

  TRY(fill_regions(rc, reader, k, plan, report));
  TRY(protect_regions(rc, plan));
  uint64_t t3 = now_ns();
  t.fill_ns = t3 - t2;

  TRY_CTX(restore_mm(rc, reader, k, state, report), "restoring brk");
  TRY_CTX(fd_numbers == FdNumbers::Exact ? restore_fd_numbers(rc, state, report) : restore_files(rc, state, report),
          "restoring files");
  TRY_CTX(restore_thread_ids(rc, state, report), "restoring the thread's clear_child_tid and robust list");
  // Before the signals: a signal the recorder delivered right after the
  // checkpoint is queued to the thread it went to.
  if (threads) *threads = TRY_CTX(restore_threads(rc, state, report), "restoring threads");
  std::map<int32_t, process::Task*> live_tids{{state.threads.front().tid.value, &task}};
  if (threads)
    for (RestoredThread& t : *threads) live_tids[t.recorded.value] = &t.task;
  TRY_CTX(restore_signals(rc, state, leading_signal_events(reader, k), live_tids, report), "restoring signal state");
  TRY(rc.call("munmap (scratch)", SYS_munmap, plan.scratch_addr, kScratchSize));
  TRY(restore_registers(task, state.threads.front()));
  t.state_ns = now_ns() - t3;
  t.injected_syscalls = rc.calls();
  if (lazy) TRY(lazy->start(reader, k));
  return ok_status();
}

}  // namespace

Result<std::string> find_restorer(const std::string& explicit_path) {
  if (!explicit_path.empty()) {
    if (executable(explicit_path)) return explicit_path;
    return Error::msg("restorer not found or not executable: " + explicit_path);
  }
  if (const char* env = std::getenv("SLSDBG_RESTORER"); env && *env) {
    if (executable(env)) return std::string(env);
    return Error::msg(std::string("restorer not found or not executable: ") + env + " (from SLSDBG_RESTORER)");
  }
  char self[4096];
  ssize_t n = ::readlink("/proc/self/exe", self, sizeof self - 1);
  std::string beside;
  if (n > 0) {
    self[n] = 0;
    std::string dir(self);
    dir = dir.substr(0, dir.rfind('/'));
    beside = dir + "/slsdbg-restorer";
    if (executable(beside)) return beside;
  }
  if (executable(SLSDBG_RESTORER_BUILD_PATH)) return std::string(SLSDBG_RESTORER_BUILD_PATH);
  return Error::msg("restorer not found: looked for " + beside + " and " + SLSDBG_RESTORER_BUILD_PATH +
                    " (set SLSDBG_RESTORER)");
}

Result<process::Task> restore_checkpoint(const store::RecordingReader& reader, CheckpointId k, RestoreOptions options) {
  uint64_t start = now_ns();
  auto cps = reader.checkpoints();
  bool known = false;
  for (const auto& c : cps) known |= c.id == k;
  if (!known) {
    if (cps.empty()) return Error::msg("checkpoint " + std::to_string(k.value) + " out of range: the recording has no checkpoints");
    return Error::msg("checkpoint " + std::to_string(k.value) + " out of range (recording has checkpoints " +
                      std::to_string(cps.front().id.value) + ".." + std::to_string(cps.back().id.value) + ")");
  }
  std::string where = "restoring checkpoint " + std::to_string(k.value);
  store::ProcessState state = TRY_CTX(reader.process_state(k), where);
  if (state.threads.empty()) return Error::msg(where + ": the checkpoint has no threads");
  if (state.threads.size() > 1 && !options.threads)
    return Error::msg(where + ": " + std::to_string(state.threads.size()) +
                      " threads; restoring multithreaded checkpoints is not supported here yet");
  std::string restorer = TRY(find_restorer(options.restorer_path));
  // A packed recording maps the pack's copies (store/pack_layout.h).
  auto packed = [&](const std::string& path) { return store::packed_or_original(store::dir_of(reader), path); };
  auto probe = [&](const store::Mapping& m) { return probe_file_on_disk(m, packed(m.path)); };
  RestorePlan plan = TRY_CTX(plan_restore(state, inject_area(), probe), where);
  for (MappingStep& s : plan.mappings)
    if (s.source == MappingSource::File) s.file_path = packed(s.mapping.path);

  RestoreReport local;
  RestoreReport& report = options.report ? *options.report : local;
  report.warnings = plan.warnings;
  report.timings = {};
  uint64_t t0 = now_ns();
  process::SpawnOptions spawn;
  spawn.argv = {restorer};
  spawn.in_child_before_exec = options.in_child_before_exec;
  if (options.recorded_pid) spawn.pid = state.pid;
  process::Task task = TRY_CTX(process::spawn_traced(spawn), where + ": starting the restorer");
  if (options.recorded_pid && task.tgid() != state.pid)
    report.warnings.push_back("pid " + std::to_string(task.tgid()) + ", not the recorded " + std::to_string(state.pid) +
                              " (in use, or no privilege to choose it): a pid the program cached is stale");
  report.timings.spawn_ns = now_ns() - t0;
  if (options.fill == FillMode::Lazy && !options.lazy) return Error::msg(where + ": lazy fill needs a LazyFiller");
  LazyFiller* lazy = options.fill == FillMode::Lazy ? options.lazy : nullptr;
  if (options.threads) options.threads->clear();
  Status done = restore_into(task, reader, k, state, plan, lazy, options.fd_numbers, options.threads, report);
  if (!done.ok()) {
    task.kill_and_reap();
    return done.take_error().context(where);
  }
  report.timings.total_ns = now_ns() - start;
  return task;
}

}  // namespace slsdbg::restore
