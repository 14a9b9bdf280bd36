// Subcommands register themselves (one file each, cmd_*.cc) so that `--help`
// lists exactly the commands that are built and work.
#pragma once

#include <string>
#include <vector>

namespace slsdbg::cli {

// The same for every command (a command may add its own above 2, e.g. bisect's verdicts).
constexpr int kExitOk = 0;
constexpr int kExitFailure = 1;  // a runtime failure: no such recording, I/O, divergence
constexpr int kExitUsage = 2;    // bad usage: unknown option, missing or malformed argument

struct Command {
  const char* name;
  const char* summary;  // one line for `slsdbg --help`
  const char* usage;    // full text for `slsdbg NAME --help` and `slsdbg help NAME`
  // Args after NAME; parses them with cli/options.h's Options; returns the exit code.
  int (*run)(const std::vector<std::string>& args);
  int order = 100;      // position in --help
};

void register_command(const Command& cmd);
const std::vector<Command>& commands();

// Prints "slsdbg: MESSAGE" to stderr and returns the exit code to use.
int fail(const std::string& message, int code = kExitFailure);

struct Registrar {
  explicit Registrar(const Command& cmd) { register_command(cmd); }
};

}  // namespace slsdbg::cli
