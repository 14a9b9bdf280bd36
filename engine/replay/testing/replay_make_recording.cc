// Test tool: records a program with the recorder's library
// (recorder::record_program), for replay's tests while `slsdbg record` is not
// on this branch. usage: replay_make_recording OUT_DIR PROGRAM [ARGS...]
#include <cstdio>
#include <string>
#include <vector>

#include "recorder/record/record_session.h"

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: replay_make_recording OUT_DIR PROGRAM [ARGS...]\n");
    return 2;
  }
  slsdbg::recorder::RecordOptions options;
  options.out_dir = argv[1];
  // As restore_recorded_test: the uffd tracker fails under record_program here.
  options.tracker = slsdbg::recorder::TrackerChoice::PageHash;
  for (int i = 2; i < argc; i++) options.argv.emplace_back(argv[i]);
  auto outcome = slsdbg::recorder::record_program(options);
  if (!outcome.ok()) {
    std::fprintf(stderr, "replay_make_recording: %s\n", outcome.error().message.c_str());
    return 1;
  }
  std::fprintf(stderr, "replay_make_recording: %llu checkpoints, %llu events, exit %d\n",
               (unsigned long long)outcome->checkpoints, (unsigned long long)outcome->events, outcome->exit_code);
  return 0;
}
