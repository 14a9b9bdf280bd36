// slsdbg: thin front end. Parses the subcommand name and hands over.
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "cli/command.h"
#include "cli/version.h"

using slsdbg::cli::commands;

static void print_help() {
  std::printf(
      "slsdbg %s - time-travel debugger built on continuous checkpoints\n\n"
      "usage: slsdbg COMMAND [ARGS...]\n       slsdbg COMMAND --help\n\ncommands:\n",
      SLSDBG_VERSION);
  for (const auto& c : commands()) std::printf("  %-10s %s\n", c.name, c.summary);
  std::printf("\noptions:\n  --help     this text\n  --version  print the version\n");
}

int main(int argc, char** argv) {
  if (argc < 2) {
    print_help();
    return slsdbg::cli::kExitUsage;
  }
  std::string first = argv[1];
  if (first == "help" && argc == 3) {  // `slsdbg help CMD` = `slsdbg CMD --help`
    for (const auto& c : commands())
      if (c.name == std::string(argv[2])) {
        std::printf("%s", c.usage);
        return 0;
      }
    return slsdbg::cli::fail(std::string("help: unknown command '") + argv[2] + "' (see slsdbg --help)",
                              slsdbg::cli::kExitUsage);
  }
  if (first == "--help" || first == "-h" || first == "help") {
    print_help();
    return 0;
  }
  if (first == "--version" || first == "-V") {
    std::printf("slsdbg %s\n", SLSDBG_VERSION);
    return 0;
  }
  std::vector<std::string> args(argv + 2, argv + argc);
  for (const auto& c : commands()) {
    if (first == c.name) return c.run(args);  // --help is the command's parser's (cli/options.h)
  }
  return slsdbg::cli::fail("unknown command '" + first + "' (see slsdbg --help)", slsdbg::cli::kExitUsage);
}
