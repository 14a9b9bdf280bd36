#include "engine/bisect/cmd_invariant.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <vector>

#include "common/signal_name.h"
#include "process/cpu.h"

extern char** environ;

namespace slsdbg::bisect {
namespace {

std::string last_line(const std::string& path) {
  std::ifstream in(path);
  std::string line, last;
  while (std::getline(in, line))
    if (!line.empty()) last = line;
  if (last.size() > 300) last = last.substr(0, 300) + "...";
  return last;
}

}  // namespace

Result<Evaluation> CmdInvariant::evaluate(const StateView& at) {
  std::string core = TRY(write_core_of(at, scratch_, "probe.core"));
  std::string output = scratch_.path() + "/cmd.out";

  std::vector<std::string> env;
  for (char** e = environ; *e; e++) {
    std::string kv(*e);
    if (kv.rfind("SLSDBG_CORE=", 0) == 0 || kv.rfind("SLSDBG_EXE=", 0) == 0 || kv.rfind("SLSDBG_WHERE=", 0) == 0)
      continue;
    env.push_back(kv);
  }
  env.push_back("SLSDBG_CORE=" + core);
  env.push_back("SLSDBG_EXE=" + exe_);
  env.push_back("SLSDBG_WHERE=" + at.where);
  std::vector<char*> envp;
  for (auto& kv : env) envp.push_back(kv.data());
  envp.push_back(nullptr);
  std::string sh = "sh", dash_c = "-c", cmd = command_;
  char* argv[] = {sh.data(), dash_c.data(), cmd.data(), nullptr};

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, output.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  pid_t pid = -1;
  int rc;
  {
    const process::UnpinnedScope unpinned;  // the user's command off the tracees' CPU
    rc = ::posix_spawn(&pid, "/bin/sh", &actions, nullptr, argv, envp.data());
  }
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) return Error::from_errno("posix_spawn /bin/sh", rc);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return Error::from_errno("waitpid");
  std::string said = last_line(output);
  std::string tail = said.empty() ? "" : " (it said: " + said + ")";
  if (WIFSIGNALED(status))
    return Error::msg("--cmd '" + command_ + "' was killed by " + signal_name(WTERMSIG(status)) + " at " +
                      at.where + tail);
  int code = WEXITSTATUS(status);
  if (code == 0) return Evaluation{Verdict::Good, said};
  if (code <= 124) return Evaluation{Verdict::Bad, said};
  if (code == 125) return Error::msg("--cmd '" + command_ + "' cannot tell (exit 125) at " + at.where + tail);
  return Error::msg("--cmd '" + command_ + "' could not run (exit " + std::to_string(code) + ") at " + at.where + tail);
}

}  // namespace slsdbg::bisect
