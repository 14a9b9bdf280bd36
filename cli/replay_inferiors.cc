#include "cli/replay_inferiors.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>

#include "process/cpu.h"
#include "store/group_cuts.h"
#include "store/members.h"

namespace slsdbg::cli {

namespace {

// A member's server is listening once its socket exists; a replay that
// fails first (a bad member) has exited: its one-line error is in its log.
Status wait_listening(pid_t child, const std::string& sock, const std::string& log, int pid) {
  for (int waited_ms = 0; waited_ms < 300'000; waited_ms += 20) {
    struct stat st;
    if (::stat(sock.c_str(), &st) == 0 && S_ISSOCK(st.st_mode)) return ok_status();
    int status = 0;
    if (::waitpid(child, &status, WNOHANG) == child) {
      std::ifstream in(log);
      std::string line, last;
      while (std::getline(in, line))
        if (!line.empty()) last = line;
      return Error::msg("the server of process " + std::to_string(pid) + " ended: " + last);
    }
    ::usleep(20'000);
  }
  return Error::msg("the server of process " + std::to_string(pid) + " did not listen within 300 s");
}

}  // namespace

Result<InferiorServers> InferiorServers::start(const std::string& rec, std::optional<uint64_t> cut,
                                               std::optional<std::string>& root_start) {
  std::vector<store::Member> members = TRY(store::list_members(rec));
  std::vector<store::CutMember> in_cut;
  if (cut) {
    std::vector<store::GroupCut> cuts = TRY(store::read_group_cuts(rec));
    if (cuts.empty()) return Error::bad_input("--cut " + std::to_string(*cut) + ": " + rec + " has no group cuts");
    if (*cut == 0 || *cut > cuts.size())
      return Error::bad_input("--cut " + std::to_string(*cut) + ": no such cut (it has cuts 1.." + std::to_string(cuts.size()) + ")");
    in_cut = cuts[*cut - 1].members;
  }
  auto checkpoint_in_cut = [&](int pid) -> std::optional<uint64_t> {
    for (const store::CutMember& m : in_cut)
      if (m.pid == pid) return m.checkpoint;
    return std::nullopt;
  };
  InferiorServers s;
  // mkdtemp makes it 0700: the sockets serve recorded memory.
  const char* base = getenv("TMPDIR");
  std::string path = std::string(base && *base ? base : "/tmp") + "/slsdbg-inferiors.XXXXXX";
  std::vector<char> buf(path.begin(), path.end());
  buf.push_back('\0');
  if (!::mkdtemp(buf.data())) return Error::from_errno("mkdtemp " + path);
  s.dir_ = buf.data();
  for (size_t i = 0; i < members.size(); i++) {
    const store::Member& m = members[i];
    std::optional<uint64_t> at;
    if (cut) {
      at = checkpoint_in_cut(m.pid);
      if (!at) continue;  // not alive at the cut's moment
    }
    if (i == 0) {  // the root: served by this process
      if (at) root_start = std::to_string(*at);
      continue;
    }
    Server srv;
    srv.pid = m.pid;
    srv.program = m.program;
    srv.sock = s.dir_ + "/" + std::to_string(m.pid) + ".sock";
    const std::string log = s.dir_ + "/" + std::to_string(m.pid) + ".log";
    std::vector<std::string> args = {"slsdbg", "replay", rec, "-p", std::to_string(m.pid), "--server", "unix:" + srv.sock};
    if (at) args.insert(args.end(), {"--at", std::to_string(*at)});
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    srv.child = ::fork();
    if (srv.child < 0) return Error::from_errno("fork");
    if (srv.child == 0) {
      const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
      if (fd >= 0) {
        ::dup2(fd, 1);
        ::dup2(fd, 2);
      }
      const int null = ::open("/dev/null", O_RDONLY);
      if (null >= 0) ::dup2(null, 0);
      signal(SIGINT, SIG_IGN);  // Ctrl-C is GDB's: it interrupts over the socket
      process::unpin_thread();  // a server of its own pins its own tracer
      ::execv("/proc/self/exe", argv.data());
      _exit(127);
    }
    s.servers_.push_back(srv);
    TRY(wait_listening(srv.child, srv.sock, log, srv.pid));
  }
  return s;
}

InferiorServers::InferiorServers(InferiorServers&& o) noexcept : dir_(std::move(o.dir_)), servers_(std::move(o.servers_)) {
  o.servers_.clear();
  o.dir_.clear();
}

InferiorServers::~InferiorServers() {
  for (Server& srv : servers_) {
    int status = 0;
    bool done = false;
    for (int i = 0; i < 250 && !done; i++) {  // GDB has detached or is gone: a server ends at once
      done = ::waitpid(srv.child, &status, WNOHANG) == srv.child;
      if (!done) ::usleep(20'000);
    }
    if (!done) {
      ::kill(srv.child, SIGKILL);
      ::waitpid(srv.child, &status, 0);
    }
    ::unlink(srv.sock.c_str());
    ::unlink((dir_ + "/" + std::to_string(srv.pid) + ".log").c_str());
  }
  if (!dir_.empty()) ::rmdir(dir_.c_str());
}

std::string InferiorServers::gdb_setup() const {
  std::string out;
  int n = 1;
  for (const Server& srv : servers_) {
    n++;
    out += "add-inferior -no-connection\n";
    out += "inferior " + std::to_string(n) + "\n";
    if (!srv.program.empty() && srv.program.find('\n') == std::string::npos && ::access(srv.program.c_str(), R_OK) == 0) out += "file " + srv.program + "\n";
    out += "target remote " + srv.sock + "\n";
  }
  if (n > 1) out += "inferior 1\n";
  return out;
}

}  // namespace slsdbg::cli
