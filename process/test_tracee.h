// Test helper (not part of the library): runs tests/programs/capture_pages
// under ptrace, sends it commands, and leaves it in a PTRACE_EVENT_STOP
// (PTRACE_INTERRUPT) between commands.
#pragma once

#include <string>
#include <utility>

#include "common/fd.h"
#include "process/spawn.h"
#include "process/task.h"

namespace slsdbg::process::testing {

// $SLSDBG_BUILD_DIR/tests/programs/NAME
std::string fixture_path(const std::string& name);

class CommandTracee {
 public:
  static Result<CommandTracee> start();
  CommandTracee(CommandTracee&& o) noexcept
      : task_(std::move(o.task_)), to_(std::move(o.to_)), from_(std::move(o.from_)), running_(std::exchange(o.running_, false)) {}
  ~CommandTracee();

  Task& task() { return task_; }
  pid_t pid() const { return task_.tgid(); }

  // From a stop: resume, run one command, read "OK <hex>", stop again.
  Result<uint64_t> command(const std::string& line);
  // Sends a command without resuming or stopping (the caller drives ptrace).
  Status send(const std::string& line);
  Result<uint64_t> read_reply();
  // Resume and wait for the exit status (after "Q").
  Result<WaitResult> run_to_exit();
  // Resume, then PTRACE_INTERRUPT and wait for the event stop.
  Status stop();

 private:
  CommandTracee(Task task, UniqueFd to, UniqueFd from) : task_(std::move(task)), to_(std::move(to)), from_(std::move(from)) {}
  Task task_;
  UniqueFd to_, from_;
  bool running_ = false;
};

}  // namespace slsdbg::process::testing

// ASSERT_OK(result-or-status): fails the test with the error's message.
#define ASSERT_OK(expr)                                 \
  do {                                                  \
    auto&& _assert_ok = (expr);                         \
    ASSERT_TRUE(_assert_ok.ok()) << _assert_ok.error().message; \
  } while (0)
