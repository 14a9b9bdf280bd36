// Restore latency of a checkpoint of a large process. Makes a recording of
// tests/programs/restore_big (MIB MiB, dense or sparse) with `slsdbg record`,
// ended by SIGINT (a final checkpoint) after --delay-ms, then restores its last checkpoint RUNS times eagerly and RUNS times
// lazily (userfaultfd; also timing until every page is present) and prints
// one JSON object: per-run timings (spawn, map, fill, state, total), bytes
// written, and as peers the native time to populate the same memory and the
// raw process_vm_writev bandwidth of this machine.
// usage: restore_bench [--mib N] [--pattern dense|sparse] [--runs N] [--delay-ms N]
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "engine/restore/lazy_fill.h"
#include "engine/restore/restore.h"
#include "store/recording.h"

using namespace slsdbg;
namespace fs = std::filesystem;

static double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

static double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

// `slsdbg record -o OUT -- ARGV...` for `ms`, then SIGINT: the recorder takes
// a final checkpoint and ends. False when it could not run.
static bool record_for(const std::string& slsdbg, const std::string& out, unsigned ms, const std::vector<std::string>& argv) {
  std::vector<std::string> args = {slsdbg, "record", "-o", out, "--interval", std::to_string(std::max(ms, 1u)), "--"};
  args.insert(args.end(), argv.begin(), argv.end());
  pid_t pid = fork();
  if (pid == 0) {
    std::vector<char*> cargs;
    for (auto& a : args) cargs.push_back(a.data());
    cargs.push_back(nullptr);
    int null = open("/dev/null", O_WRONLY);
    dup2(null, 1);
    execv(cargs[0], cargs.data());
    _exit(127);
  }
  if (pid < 0) return false;
  std::this_thread::sleep_for(std::chrono::milliseconds(ms));
  kill(pid, SIGINT);
  int st = 0;
  waitpid(pid, &st, 0);
  return WIFEXITED(st) && WEXITSTATUS(st) == 128 + SIGINT;
}

// Native: the fixture populating its memory and exiting.
static double native_populate_ms(const std::string& prog, const std::string& mib, const std::string& pattern) {
  auto t0 = std::chrono::steady_clock::now();
  pid_t pid = fork();
  if (pid == 0) {
    execl(prog.c_str(), prog.c_str(), mib.c_str(), pattern.c_str(), "exit", (char*)nullptr);
    _exit(127);
  }
  int st;
  waitpid(pid, &st, 0);
  return ms_since(t0);
}

// Peer: process_vm_writev of `bytes` into a child, 1024 x 4 KiB iovecs per call.
static double pvm_write_gbps(size_t bytes) {
  uint8_t* dst = (uint8_t*)mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  pid_t pid = fork();
  if (pid == 0) {
    pause();
    _exit(0);
  }
  std::vector<uint8_t> src(4 << 20, 0x5a);
  auto t0 = std::chrono::steady_clock::now();
  std::vector<iovec> l(1024), r(1024);
  for (size_t off = 0; off < bytes; off += 1024 * 4096) {
    for (size_t i = 0; i < 1024; i++) {
      l[i] = {src.data() + (i * 4096) % src.size(), 4096};
      r[i] = {dst + off + i * 4096, 4096};
    }
    process_vm_writev(pid, l.data(), 1024, r.data(), 1024, 0);
  }
  double s = ms_since(t0) / 1000;
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
  munmap(dst, bytes);
  return double(bytes) / s / 1e9;
}

int main(int argc, char** argv) {
  std::string mib = "1024", pattern = "dense";
  int runs = 5;
  unsigned delay_ms = 4000;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string a = argv[i];
    if (a == "--mib") mib = argv[i + 1];
    else if (a == "--pattern") pattern = argv[i + 1];
    else if (a == "--runs") runs = std::atoi(argv[i + 1]);
    else if (a == "--delay-ms") delay_ms = unsigned(std::atoi(argv[i + 1]));
    else {
      std::fprintf(stderr, "usage: restore_bench [--mib N] [--pattern dense|sparse] [--runs N] [--delay-ms N]\n");
      return 2;
    }
  }
  const char* build = std::getenv("SLSDBG_BUILD_DIR");
  std::string prog = std::string(build ? build : ".") + "/tests/programs/restore_big";
  std::string slsdbg = std::string(build ? build : ".") + "/cli/slsdbg";
  fs::path dir = fs::temp_directory_path() / ("restore_bench_" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);

  const std::string rec = (dir / "rec").string();
  auto t0 = std::chrono::steady_clock::now();
  if (!record_for(slsdbg, rec, delay_ms, {prog, mib, pattern})) {
    std::fprintf(stderr, "restore_bench: %s record did not end with its final checkpoint\n", slsdbg.c_str());
    return 1;
  }
  double record_ms = ms_since(t0);
  auto reader = store::RecordingReader::open(rec);
  if (!reader.ok()) {
    std::fprintf(stderr, "restore_bench: %s\n", reader.error().message.c_str());
    return 1;
  }
  CheckpointId k((*reader)->checkpoints().back().id);

  std::vector<double> total, spawn, map, fill, state, lazy_total, lazy_filled;
  uint64_t bytes = 0, lazy_bytes = 0;
  for (int i = 0; i < runs; i++) {
    restore::RestoreReport rep;
    restore::RestoreOptions opt;
    opt.report = &rep;
    auto task = restore::restore_checkpoint(**reader, k, opt);
    if (!task.ok()) {
      std::fprintf(stderr, "restore_bench: %s\n", task.error().message.c_str());
      return 1;
    }
    task->kill_and_reap();
    total.push_back(rep.timings.total_ns / 1e6);
    spawn.push_back(rep.timings.spawn_ns / 1e6);
    map.push_back(rep.timings.map_ns / 1e6);
    fill.push_back(rep.timings.fill_ns / 1e6);
    state.push_back(rep.timings.state_ns / 1e6);
    bytes = rep.timings.bytes_written;

    restore::LazyFiller filler;
    restore::RestoreReport lrep;
    restore::RestoreOptions lopt;
    lopt.report = &lrep;
    lopt.fill = restore::FillMode::Lazy;
    lopt.lazy = &filler;
    auto t1 = std::chrono::steady_clock::now();
    auto ltask = restore::restore_checkpoint(**reader, k, lopt);
    if (!ltask.ok()) {
      std::fprintf(stderr, "restore_bench: lazy: %s\n", ltask.error().message.c_str());
      return 1;
    }
    filler.wait_filled();
    lazy_filled.push_back(ms_since(t1));
    ltask->kill_and_reap();
    lazy_total.push_back(lrep.timings.total_ns / 1e6);
    lazy_bytes = lrep.timings.bytes_written;
  }
  double native_ms = native_populate_ms(prog, mib, pattern);
  double pvm = pvm_write_gbps(256u << 20);
  fs::remove_all(dir);

  auto arr = [](const std::vector<double>& v) {
    std::string s = "[";
    for (size_t i = 0; i < v.size(); i++) s += (i ? ", " : "") + std::to_string(v[i]);
    return s + "]";
  };
  std::printf(
      "{\"bench\": \"restore\", \"mib\": %s, \"pattern\": \"%s\", \"runs\": %d, \"recording_ms\": %.1f,\n"
      " \"restore_total_ms\": %s,\n \"median_ms\": {\"total\": %.2f, \"spawn\": %.2f, \"map\": %.2f, \"fill\": %.2f, "
      "\"state\": %.2f},\n \"bytes_written\": %llu, \"fill_gbps\": %.2f,\n"
      " \"lazy\": {\"restore_total_ms\": %s, \"median_total_ms\": %.2f, \"bytes_written_before_return\": %llu,\n"
      "          \"median_ms_until_all_pages_present\": %.1f},\n"
      " \"peer\": {\"native_populate_ms\": %.1f, \"process_vm_writev_gbps\": %.2f},\n \"goal_ms\": 10}\n",
      mib.c_str(), pattern.c_str(), runs, record_ms, arr(total).c_str(), median(total), median(spawn), median(map),
      median(fill), median(state), (unsigned long long)bytes,
      median(fill) > 0 ? double(bytes) / (median(fill) / 1000) / 1e9 : 0.0, arr(lazy_total).c_str(),
      median(lazy_total), (unsigned long long)lazy_bytes, median(lazy_filled), native_ms, pvm);
  return 0;
}
