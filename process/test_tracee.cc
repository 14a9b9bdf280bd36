#include "process/test_tracee.h"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <cstdlib>

extern char** environ;

namespace slsdbg::process::testing {

std::string fixture_path(const std::string& name) {
  const char* build = std::getenv("SLSDBG_BUILD_DIR");
  return std::string(build ? build : ".") + "/tests/programs/" + name;
}

Result<CommandTracee> CommandTracee::start() {
  int in[2], out[2];
  if (pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0) return Error::from_errno("pipe2");
  SpawnOptions opts;
  opts.argv = {fixture_path("capture_pages")};
  // No rseq: the kernel writes the rseq area (cpu_id) on every return to user
  // space, which would add a page to every "nothing was written" dirty set.
  for (char** e = environ; *e; ++e) opts.env.emplace_back(*e);
  opts.env.emplace_back("GLIBC_TUNABLES=glibc.pthread.rseq=0");
  opts.in_child_before_exec = [&]() -> Status {
    if (dup2(in[0], 0) < 0 || dup2(out[1], 1) < 0) return Error::from_errno("dup2");
    return ok_status();
  };
  auto task = spawn_traced(opts);
  close(in[0]);
  close(out[1]);
  if (!task.ok()) {
    close(in[1]);
    close(out[0]);
    return task.take_error();
  }
  return CommandTracee(std::move(*task), UniqueFd(in[1]), UniqueFd(out[0]));
}

CommandTracee::~CommandTracee() {
  if (task_.tgid() > 0 && (task_.last_stop().stopped() || running_)) task_.kill_and_reap();
}

Status CommandTracee::stop() {
  TRY(task_.interrupt());
  for (;;) {
    WaitResult w = TRY(task_.wait());
    if (!w.stopped()) return Error::msg("tracee ended unexpectedly");
    if (w.kind == StopKind::PtraceEvent && w.event == PTRACE_EVENT_STOP) break;
    TRY(task_.cont(w.kind == StopKind::SignalDelivery ? w.signo : 0));
  }
  running_ = false;
  return ok_status();
}

Status CommandTracee::send(const std::string& line) {
  std::string text = line + "\n";
  if (write(to_.get(), text.data(), text.size()) != static_cast<ssize_t>(text.size())) return Error::from_errno("write(command)");
  return ok_status();
}

Result<uint64_t> CommandTracee::read_reply() {
  std::string reply;
  char c;
  while (reply.empty() || reply.back() != '\n') {
    pollfd p{from_.get(), POLLIN, 0};
    if (poll(&p, 1, 60000) <= 0) return Error::msg("tracee did not answer");
    if (read(from_.get(), &c, 1) != 1) return Error::msg("tracee closed its output");
    reply.push_back(c);
  }
  if (reply.rfind("OK ", 0) != 0) return Error::msg("bad reply: " + reply);
  return std::strtoull(reply.c_str() + 3, nullptr, 16);
}

Result<uint64_t> CommandTracee::command(const std::string& line) {
  TRY(task_.cont());
  running_ = true;
  TRY(send(line));
  auto reply = read_reply();
  TRY(stop());
  return reply;
}

Result<WaitResult> CommandTracee::run_to_exit() {
  TRY(task_.cont());
  running_ = true;
  if (write(to_.get(), "Q\n", 2) != 2) return Error::from_errno("write(Q)");
  for (;;) {
    WaitResult w = TRY(task_.wait());
    if (!w.stopped()) {
      running_ = false;
      return w;
    }
    TRY(task_.cont(w.kind == StopKind::SignalDelivery ? w.signo : 0));
  }
}

}  // namespace slsdbg::process::testing
