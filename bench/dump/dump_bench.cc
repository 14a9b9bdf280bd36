// bench/dump: time and size of an ELF core of a 1 GiB process, written by
// slsdbg's core writer (engine/dump) and by GDB's gcore, side by side on the
// same stopped process (tests/programs/dump_bigheap). Prints one JSON object.
//
//   dump_bench FIXTURE [--mib N] [--runs R] [--gcore-runs G] [--dir DIR]
//
// The slsdbg side reads memory from the live process here (process_vm_readv);
// bench/dump/run.sh adds `slsdbg dump` from a recording when the recorder exists.
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "engine/dump/core_writer.h"
#include "engine/dump/testing/live_process.h"

using namespace slsdbg;

namespace {

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

struct FileSize {
  long long bytes = 0, allocated = 0;
};

FileSize file_size(const std::string& path) {
  struct stat st{};
  if (::stat(path.c_str(), &st) != 0) return {};
  return {static_cast<long long>(st.st_size), static_cast<long long>(st.st_blocks) * 512};
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

std::string series(const std::vector<double>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); i++) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

int die(const std::string& msg) {
  std::fprintf(stderr, "dump_bench: %s\n", msg.c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return die("usage: dump_bench FIXTURE [--mib N] [--runs R] [--gcore-runs G] [--dir DIR]");
  std::string fixture = argv[1];
  int mib = 1024, runs = 5, gcore_runs = 3;
  const char* tmp = std::getenv("TMPDIR");
  std::string dir = tmp && *tmp ? tmp : "/tmp";
  for (int i = 2; i + 1 < argc; i += 2) {
    std::string a = argv[i];
    if (a == "--mib") mib = std::atoi(argv[i + 1]);
    else if (a == "--runs") runs = std::atoi(argv[i + 1]);
    else if (a == "--gcore-runs") gcore_runs = std::atoi(argv[i + 1]);
    else if (a == "--dir") dir = argv[i + 1];
    else return die("unknown option " + a);
  }
  auto pid = dump::testing::spawn_until_signal({fixture, std::to_string(mib), "stop"}, SIGSTOP);
  if (!pid.ok()) return die(pid.error().message);
  auto state = dump::testing::read_live_state(*pid, {*pid});
  if (!state.ok()) {
    dump::testing::kill_traced(*pid);
    return die(state.error().message);
  }
  dump::testing::LiveMemory memory(*pid);

  std::string core = dir + "/dump_bench.slsdbg.core";
  std::vector<double> ours;
  dump::CoreSummary summary;
  for (int r = 0; r < runs; r++) {
    ::unlink(core.c_str());
    ::sync();  // the previous run's writeback is not this run's cost
    double t0 = now_s();
    auto s = dump::write_core(*state, memory, core, dump::CoreOptions{});
    double t1 = now_s();
    if (!s.ok()) {
      dump::testing::kill_traced(*pid);
      return die(s.error().message);
    }
    summary = *s;
    ours.push_back(t1 - t0);
  }
  FileSize ours_size = file_size(core);
  ::unlink(core.c_str());

  // gcore attaches with ptrace itself: detach, leaving the process stopped.
  ::ptrace(PTRACE_DETACH, *pid, nullptr, reinterpret_cast<void*>(static_cast<long>(SIGSTOP)));
  std::vector<double> theirs;
  FileSize gcore_size;
  std::string gcore_prefix = dir + "/dump_bench.gcore";
  std::string gcore_file = gcore_prefix + "." + std::to_string(*pid);
  for (int r = 0; r < gcore_runs; r++) {
    ::unlink(gcore_file.c_str());
    ::sync();
    std::string cmd = "gcore -o " + gcore_prefix + " " + std::to_string(*pid) + " >/dev/null 2>&1";
    double t0 = now_s();
    int rc = std::system(cmd.c_str());
    double t1 = now_s();
    if (rc != 0) break;
    theirs.push_back(t1 - t0);
    gcore_size = file_size(gcore_file);
  }
  ::unlink(gcore_file.c_str());
  ::kill(*pid, SIGKILL);
  int status;
  ::waitpid(*pid, &status, 0);

  std::printf(
      "{\n  \"bench\": \"dump\",\n  \"image_mib\": %d,\n  \"mappings\": %u,\n"
      "  \"slsdbg_core_writer_live\": {\"runs\": %d, \"median_s\": %.4f, \"seconds\": %s, \"file_bytes\": %lld, "
      "\"allocated_bytes\": %lld, \"memory_bytes\": %llu, \"hole_bytes\": %llu},\n"
      "  \"gdb_gcore\": {\"runs\": %zu, \"median_s\": %.4f, \"seconds\": %s, \"file_bytes\": %lld, "
      "\"allocated_bytes\": %lld}\n}\n",
      mib, summary.load_segments, runs, median(ours), series(ours).c_str(), ours_size.bytes, ours_size.allocated,
      static_cast<unsigned long long>(summary.memory_bytes), static_cast<unsigned long long>(summary.zero_bytes),
      theirs.size(), median(theirs), series(theirs).c_str(), gcore_size.bytes, gcore_size.allocated);
  return 0;
}
