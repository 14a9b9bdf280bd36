#include "cli/command.h"

#include <algorithm>
#include <cstdio>

namespace slsdbg::cli {

static std::vector<Command>& registry() {
  static std::vector<Command> cmds;
  return cmds;
}

void register_command(const Command& cmd) {
  auto& cmds = registry();
  cmds.push_back(cmd);
  std::stable_sort(cmds.begin(), cmds.end(), [](const Command& a, const Command& b) { return a.order < b.order; });
}

const std::vector<Command>& commands() { return registry(); }

int fail(const std::string& message, int code) {
  std::fprintf(stderr, "slsdbg: %s\n", message.c_str());
  return code;
}

}  // namespace slsdbg::cli
