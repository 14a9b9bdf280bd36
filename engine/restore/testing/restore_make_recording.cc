// restore_make_recording OUT DELAYS_MS -- PROGRAM [ARGS...]
// e.g. `restore_make_recording /tmp/rec 0,150,400 -- ./prog 1000`: checkpoints
// at the exec stop and after 150 and 400 ms of running. For tests and bench of
// restore until `slsdbg record` exists.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "engine/restore/testing/make_recording.h"

int main(int argc, char** argv) {
  if (argc < 5 || std::string(argv[3]) != "--") {
    std::fprintf(stderr, "usage: restore_make_recording OUT DELAYS_MS -- PROGRAM [ARGS...]\n");
    return 2;
  }
  slsdbg::restore::testing::CaptureRun run;
  run.out_dir = argv[1];
  std::string delays = argv[2];
  size_t pos = 0;
  while (pos <= delays.size()) {
    size_t comma = delays.find(',', pos);
    if (comma == std::string::npos) comma = delays.size();
    run.delays_ms.push_back(unsigned(std::strtoul(delays.substr(pos, comma - pos).c_str(), nullptr, 10)));
    pos = comma + 1;
  }
  for (int i = 4; i < argc; i++) run.argv.push_back(argv[i]);
  auto n = slsdbg::restore::testing::make_recording_by_capture(run);
  if (!n.ok()) {
    std::fprintf(stderr, "restore_make_recording: %s\n", n.error().message.c_str());
    return 1;
  }
  std::printf("%zu checkpoints in %s\n", *n, run.out_dir.c_str());
  return 0;
}
