#include "engine/bisect/gdb_mi.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "process/cpu.h"

extern char** environ;

namespace slsdbg::bisect {
namespace {

// A probe is one core-file plus one evaluation; a minute without an answer
// means GDB is stuck (a busy CI machine still answers in seconds).
constexpr int kReplyTimeoutMs = 120'000;

}  // namespace

std::string mi_quote(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + "\"";
}

std::string mi_field(const std::string& payload, const std::string& key) {
  std::string needle = key + "=\"";
  size_t pos = payload.find(needle);
  if (pos == std::string::npos) return "";
  std::string out;
  for (size_t i = pos + needle.size(); i < payload.size(); i++) {
    char c = payload[i];
    if (c == '"') break;
    if (c != '\\' || i + 1 >= payload.size()) {
      out += c;
      continue;
    }
    char e = payload[++i];
    switch (e) {
      case 'n': out += '\n'; break;
      case 't': out += '\t'; break;
      case '"': out += '"'; break;
      case '\\': out += '\\'; break;
      default:
        if (e >= '0' && e <= '7' && i + 2 < payload.size()) {
          out += static_cast<char>((e - '0') * 64 + (payload[i + 1] - '0') * 8 + (payload[i + 2] - '0'));
          i += 2;
        } else {
          out += e;
        }
    }
  }
  return out;
}

namespace {

// GDB indexes the debug info of the program and its libraries (libc's is
// large) at every core-file load; with its index cache that is done once and
// reused by every later load and run: 2-3x less CPU per evaluation. The
// cache lives with the user's other caches; none when there is no home.
std::optional<std::string> gdb_index_cache_dir() {
  std::string base;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) base = x;
  else if (const char* h = std::getenv("HOME"); h && *h) base = std::string(h) + "/.cache";
  else return std::nullopt;
  std::string dir = base;
  for (const char* part : {"/slsdbg", "/gdb-index"}) {
    dir += part;
    if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) return std::nullopt;
  }
  return dir;
}

}  // namespace

Result<std::unique_ptr<GdbMi>> GdbMi::start(const std::string& exe) {
  int in[2], out[2];
  if (::pipe2(in, O_CLOEXEC) != 0) return Error::from_errno("pipe2");
  if (::pipe2(out, O_CLOEXEC) != 0) {
    ::close(in[0]);
    ::close(in[1]);
    return Error::from_errno("pipe2");
  }
  UniqueFd in_r(in[0]), in_w(in[1]), out_r(out[0]), out_w(out[1]);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in_r.get(), STDIN_FILENO);
  posix_spawn_file_actions_adddup2(&actions, out_w.get(), STDOUT_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  std::vector<std::string> args = {"gdb", "--nx", "--quiet", "--interpreter=mi2",
                                   "-iex", "set debuginfod enabled off",
                                   "-iex", "set pagination off",
                                   "-iex", "set confirm off"};
  if (std::optional<std::string> cache = gdb_index_cache_dir()) {
    args.insert(args.end(), {"-iex", "set index-cache directory " + *cache, "-iex", "set index-cache enabled on"});
  }
  args.push_back(exe);
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = -1;
  int rc;
  {
    const process::UnpinnedScope unpinned;  // GDB off the tracees' CPU
    rc = ::posix_spawnp(&pid, "gdb", &actions, nullptr, argv.data(), environ);
  }
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) return Error::from_errno("starting gdb (is the Debian package gdb installed?)", rc);
  std::unique_ptr<GdbMi> gdb(new GdbMi(pid, std::move(in_w), std::move(out_r)));
  // The first prompt; then a no-op command proves the session answers.
  TRY_CTX(gdb->command("-gdb-version"), "starting gdb");
  return gdb;
}

GdbMi::~GdbMi() {
  if (to_.valid()) {
    const char quit[] = "-gdb-exit\n";
    (void)!::write(to_.get(), quit, sizeof quit - 1);
    to_.reset();
  }
  for (int i = 0; i < 200; i++) {  // up to 2 s to quit by itself
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) == pid_) return;
    ::usleep(10'000);
  }
  ::kill(pid_, SIGKILL);
  int status = 0;
  ::waitpid(pid_, &status, 0);
}

Result<std::string> GdbMi::read_line() {
  for (;;) {
    size_t nl = pending_.find('\n');
    if (nl != std::string::npos) {
      std::string line = pending_.substr(0, nl);
      pending_.erase(0, nl + 1);
      if (!line.empty() && line.back() == '\r') line.pop_back();
      return line;
    }
    pollfd p{from_.get(), POLLIN, 0};
    int ready = ::poll(&p, 1, kReplyTimeoutMs);
    if (ready < 0 && errno == EINTR) continue;
    if (ready < 0) return Error::from_errno("poll on gdb's output");
    if (ready == 0) return Error::msg("gdb did not answer within 120 s");
    char buf[4096];
    ssize_t n = ::read(from_.get(), buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Error::from_errno("read from gdb");
    if (n == 0) return Error::msg("gdb exited unexpectedly");
    pending_.append(buf, static_cast<size_t>(n));
  }
}

Result<std::string> GdbMi::command(const std::string& mi) {
  std::string token = std::to_string(next_token_++);
  std::string line = token + mi + "\n";
  for (size_t off = 0; off < line.size();) {
    ssize_t n = ::write(to_.get(), line.data() + off, line.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Error::from_errno("write to gdb");
    off += static_cast<size_t>(n);
  }
  for (;;) {
    std::string reply = TRY(read_line());
    if (reply.rfind(token + "^", 0) != 0) continue;  // streams, async records, prompts
    std::string rest = reply.substr(token.size() + 1);
    if (rest.rfind("done", 0) == 0 || rest.rfind("running", 0) == 0 || rest.rfind("connected", 0) == 0)
      return rest.substr(rest.find_first_of(",") == std::string::npos ? rest.size() : rest.find(','));
    if (rest.rfind("error", 0) == 0) return Error::msg(mi_field(rest, "msg"));
    return Error::msg("unexpected reply from gdb: " + reply);
  }
}

Status GdbMi::load_core(const std::string& core_path) {
  TRY(command("-interpreter-exec console " + mi_quote("core-file " + core_path)));
  return ok_status();
}

Result<std::string> GdbMi::evaluate(const std::string& expr) {
  std::string payload = TRY(command("-data-evaluate-expression " + mi_quote(expr)));
  return mi_field(payload, "value");
}

}  // namespace slsdbg::bisect
