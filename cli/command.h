// Subcommands register themselves (one file each, cmd_*.cc) so that `--help`
// lists exactly the commands that are built and work.
#pragma once

#include <string>
#include <vector>

namespace slsdbg::cli {

struct Command {
  const char* name;
  const char* summary;  // one line for `slsdbg --help`
  const char* usage;    // full text for `slsdbg NAME --help`
  int (*run)(const std::vector<std::string>& args);  // args after NAME; returns exit code
  int order = 100;      // position in --help
};

void register_command(const Command& cmd);
const std::vector<Command>& commands();

// Prints "slsdbg: MESSAGE" to stderr and returns the exit code to use.
int fail(const std::string& message, int code = 1);

// True when args contain --help or -h.
bool wants_help(const std::vector<std::string>& args);

struct Registrar {
  explicit Registrar(const Command& cmd) { register_command(cmd); }
};

}  // namespace slsdbg::cli
