#include "gdbserver/replay/replay_frontend.h"

#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "common/temp_cleanup.h"
#include "engine/replay/binary_check.h"
#include "gdbserver/replay/threaded_target.h"
#include "gdbserver/replay/timeline_target.h"
#include "process/cpu.h"
#include "store/members.h"

namespace slsdbg::gdbserver {

namespace {

Result<std::unique_ptr<Target>> open_target(store::RecordingReader& reader, const ReplayFrontendOptions& options) {
  if (reader.meta().threads) {
    // A recording with threads: its own target (threaded_target.h).
    auto target = TRY(ThreadedTarget::open(reader));
    if (options.start_at) TRY_CTX(target->goto_text(*options.start_at), "going to " + *options.start_at);
    return std::unique_ptr<Target>(std::move(target));
  }
  auto target = TRY(TimelineTarget::open(reader));
  if (options.start_at) TRY_CTX(target->goto_text(*options.start_at), "going to " + *options.start_at);
  return std::unique_ptr<Target>(std::move(target));
}

// The recording tree that member recording `dir` belongs to (REC/members/PID
// is in REC's tree; any other directory is a root).
std::filesystem::path tree_root(const std::string& dir) {
  std::filesystem::path d = std::filesystem::path(dir).lexically_normal();
  if (!d.has_filename()) d = d.parent_path();
  if (d.parent_path().filename() == "members") return d.parent_path().parent_path();
  return d;
}

// Opens the replay of a fork child GDB follows (follow-fork-mode child) at its
// first moment, the child right after its fork; the readers live as long as
// the connection. A vfork child is refused: GDB keeps its parent attached
// until the child execs, which would take two processes on one connection,
// and a threaded parent's vfork child is recorded only from its exec.
ForkChildOpener fork_child_opener(const ReplayFrontendOptions& options,
                                  std::vector<std::unique_ptr<store::RecordingReader>>& readers) {
  if (options.recording_dir.empty()) return {};
  const std::string root = tree_root(options.recording_dir).string();
  return [root, &readers](int32_t pid) -> Result<std::unique_ptr<Target>> {
    const std::string dir = TRY(store::member_recording(root, pid));
    auto reader = TRY(store::RecordingReader::open(dir));
    if (reader->meta().origin == "vfork")
      return Error::msg("GDB keeps its vfork parent attached until the child execs, and one connection serves one process");
    if (reader->meta().origin != "fork")
      return Error::msg("its recording starts at its " + (reader->meta().origin.empty() ? std::string("start") : reader->meta().origin) +
                        ", not at its fork (a vfork-style child runs unrecorded until its exec)");
    auto target = TRY(open_target(*reader, {}));
    readers.push_back(std::move(reader));
    return target;
  };
}

// GDB quotes nothing in `file` / `target remote`; refuse what it would split.
Status check_gdb_word(const std::string& what, const std::string& text) {
  for (char c : text) {
    if (c == '\n' || c == '\r') return Error::msg(what + " contains a newline: " + text);
  }
  return ok_status();
}

int exit_code_of(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 1;
}

// A 0700 directory holding GDB's socket and setup script, gone afterwards.
class PrivateDir {
 public:
  static Result<PrivateDir> create() {
    const char* tmp = getenv("TMPDIR");
    std::string tmpl = std::string(tmp && *tmp ? tmp : "/tmp") + "/slsdbg-replay.XXXXXX";
    if (!mkdtemp(tmpl.data())) return Error::from_errno("mkdtemp " + tmpl);
    PrivateDir d;
    d.path_ = tmpl;
    d.guard_ = TempGuard(tmpl, TempKind::Dir);  // also removed when SIGTERM/SIGINT/SIGHUP kills us
    return d;
  }
  PrivateDir(PrivateDir&& o) noexcept : path_(std::move(o.path_)), guard_(std::move(o.guard_)) { o.path_.clear(); }
  ~PrivateDir() {
    if (path_.empty()) return;
    ::unlink((path_ + "/setup.gdb").c_str());
    ::unlink((path_ + "/gdb.sock").c_str());
    ::rmdir(path_.c_str());
  }
  const std::string& path() const { return path_; }

 private:
  PrivateDir() = default;
  std::string path_;
  TempGuard guard_;
};

// `goto WHERE`: monitor goto, then make GDB forget the registers and memory
// (its stack cache) it cached so it shows the new place.
constexpr const char* kGotoCommand =
    "define goto\n"
    "  monitor goto $arg0\n"
    "  maint flush register-cache\n"
    "  maint flush dcache\n"
    "  frame\n"
    "end\n"
    "document goto\n"
    "goto K | K:E:0xPC:N | BOOKMARK -- go to a checkpoint, a moment or a bookmark of the recording.\n"
    "end\n"
    // `last-write EXPR`: monitor last-write with EXPR's address and size
    // (the monitor sees text only, GDB evaluates).
    "define last-write\n"
    "  eval \"monitor last-write %p %lu\", &($arg0), (unsigned long) sizeof($arg0)\n"
    "end\n"
    "document last-write\n"
    "last-write EXPR -- the last write to EXPR before now: moment, instruction, file:line.\n"
    "end\n"
    // GDB's own `info record` knows only its built-in record targets.
    "set confirm off\n"
    "define info record\n"
    "  monitor when\n"
    "end\n"
    "set confirm on\n";

// With Python in GDB, `goto` also switches to the thread a threaded moment
// names (":t=TID:"): GDB picks its current thread only at a stop, and a
// monitor command is not one. Where GDB's selected thread does not exist
// (checkpoint 0, the exit), it switches to the first live one (else every
// command says "PC register is not available"). Last in the setup file: a
// GDB without Python stops reading it here and keeps the plain `goto` above.
constexpr const char* kGotoThreadSwitch =
    "python\n"
    "import re\n"
    "class SlsdbgGoto(gdb.Command):\n"
    "    \"\"\"goto K | MOMENT | BOOKMARK -- go to a checkpoint, a moment or a bookmark of the recording.\"\"\"\n"
    "    def __init__(self):\n"
    "        super().__init__('goto', gdb.COMMAND_RUNNING)\n"
    "    def invoke(self, arg, from_tty):\n"
    "        said = gdb.execute('monitor goto ' + arg, to_string=True)\n"
    "        gdb.write(said)\n"
    "        gdb.execute('maint flush register-cache')\n"
    "        gdb.execute('maint flush dcache')\n"
    "        named = re.search(r'now at [0-9]+:t=([0-9]+)', said)\n"
    "        try:\n"
    "            gdb.execute('info threads', to_string=True)  # the thread list of the new place\n"
    "        except Exception:\n"
    "            pass  # the selected thread is gone there: below\n"
    "        if named:\n"
    "            for t in gdb.selected_inferior().threads():\n"
    "                if t.ptid[1] == int(named.group(1)):\n"
    "                    t.switch()\n"
    "        try:\n"
    "            current = gdb.selected_thread()\n"
    "        except SystemError:\n"
    "            current = None\n"
    "        live = gdb.selected_inferior().threads()\n"
    "        if (current is None or not current.is_valid()) and live:\n"
    "            min(live, key=lambda t: t.num).switch()  # (checkpoint 0, the exit: a worker is not there)\n"
    "        gdb.execute('frame')\n"
    "SlsdbgGoto()\n"
    "end\n";

// Warns by name about binaries that changed or went missing since recording
// and about another CPU; true when REC/pack holds every mapped file.
bool check_recorded_binaries(store::RecordingReader& reader, const ReplayFrontendOptions& options) {
  if (options.recording_dir.empty()) return false;
  bool packed = false;
  for (const std::string& w : replay::check_binaries(reader, options.recording_dir, &packed))
    std::fprintf(stderr, "slsdbg: warning: %s\n", w.c_str());
  const std::string cpu = replay::check_cpu(reader);
  if (!cpu.empty()) std::fprintf(stderr, "slsdbg: warning: %s\n", cpu.c_str());
  return packed;
}

}  // namespace

Result<int> serve_recording(store::RecordingReader& reader, const ListenSpec& spec, RemoteAccess access,
                            const ReplayFrontendOptions& options) {
  Listener listener = TRY(Listener::open(spec, access));
  const bool packed = check_recorded_binaries(reader, options);
  auto target = TRY(open_target(reader, options));
  std::printf("listening on %s\n", listener.address().c_str());
  std::string exe = TRY(target->exec_file()->read_object(""));
  std::string addr = listener.address();
  // A packed recording is debugged with the pack as GDB's sysroot.
  const std::string sysroot = packed ? " -ex 'set sysroot " + store::pack_root(options.recording_dir) + "'" : "";
  if (packed) exe = store::pack_root(options.recording_dir) + exe;
  std::printf("connect with: gdb%s %s -ex 'set remotetimeout 600' -ex 'target remote %s'\n", sysroot.c_str(),
              exe.c_str(), addr.c_str());
  std::printf("          or: lldb %s -o 'gdb-remote %s'\n", exe.c_str(), addr.c_str());
  std::fflush(stdout);
  UniqueFd conn = TRY(listener.accept_one());
  std::vector<std::unique_ptr<store::RecordingReader>> child_readers;
  SessionOptions session;
  session.open_fork_child = fork_child_opener(options, child_readers);
  TRY(serve_connection(conn.get(), *target, session));
  return 0;
}

Result<int> run_gdb_on_recording(store::RecordingReader& reader, const std::vector<std::string>& gdb_args,
                                 const ReplayFrontendOptions& options) {
  const bool packed = check_recorded_binaries(reader, options);
  auto target = TRY(open_target(reader, options));
  std::string exe = TRY(target->exec_file()->read_object(""));
  // A packed recording is debugged with its own copies of the binaries.
  const std::string sysroot = packed ? store::pack_root(options.recording_dir) : "/";
  if (packed) exe = sysroot + exe;
  TRY(check_gdb_word("the program path", exe));
  TRY(check_gdb_word("the recording's path", sysroot));
  PrivateDir dir = TRY(PrivateDir::create());
  std::string sock = dir.path() + "/gdb.sock";
  ListenSpec spec;
  spec.kind = ListenSpec::Kind::Unix;
  spec.path = sock;
  Listener listener = TRY(Listener::open(spec, RemoteAccess::LoopbackOnly));

  std::string setup = dir.path() + "/setup.gdb";
  {
    int fd = ::open(setup.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) return Error::from_errno("open " + setup);
    ::close(fd);
    std::ofstream out(setup);
    // Libraries are read from this machine's files (the recording's paths);
    // the replay does not serve files (vFile).
    out << "set sysroot " << sysroot << "\n";
    // A monitor command or a first memory read may re-execute a segment
    // (seconds on a long one); GDB's default 2 s would drop the reply.
    out << "set remotetimeout 600\n";
    if (::access(exe.c_str(), R_OK) == 0) {
      out << "file " << exe << "\n";
    }
    out << "target remote " << sock << "\n";
    out << kGotoCommand;
    out << options.extra_gdb_setup;
    out << kGotoThreadSwitch;
    if (!out) return Error::msg("cannot write " + setup);
  }

  const char* gdb_env = getenv("SLSDBG_GDB");
  std::string gdb = gdb_env && *gdb_env ? gdb_env : "gdb";
  std::vector<std::string> argv_s = {gdb, "-q", "-x", setup};
  argv_s.insert(argv_s.end(), gdb_args.begin(), gdb_args.end());
  std::vector<char*> argv;
  for (auto& s : argv_s) argv.push_back(s.data());
  argv.push_back(nullptr);

  // Ctrl-C belongs to GDB (it sends the interrupt over the socket).
  struct sigaction ignore{}, old_int{};
  ignore.sa_handler = SIG_IGN;
  sigaction(SIGINT, &ignore, &old_int);
  pid_t child = ::fork();
  if (child < 0) return Error::from_errno("fork");
  if (child == 0) {
    sigaction(SIGINT, &old_int, nullptr);
    process::unpin_thread();  // GDB is not the tracee: not on its CPU
    ::execvp(argv[0], argv.data());
    _exit(127);  // the parent says it, in one line
  }
  TempGuard gdb_guard(child);  // a replay killed by a signal ends its GDB too
  int status = 0;
  std::optional<UniqueFd> conn;
  while (!conn) {
    auto accepted = listener.accept_within(100);
    if (!accepted.ok()) {
      ::kill(child, SIGTERM);
      ::waitpid(child, &status, 0);
      return accepted.take_error();
    }
    if (*accepted) {
      conn = std::move(**accepted);
      break;
    }
    pid_t done = ::waitpid(child, &status, WNOHANG);
    if (done == child) {
      // GDB ended without connecting (bad arguments, `gdb` missing, --help...).
      int code = exit_code_of(status);
      if (code == 127) return Error::msg("could not start " + gdb + " (is Debian's gdb installed? $SLSDBG_GDB names another)");
      return code;
    }
  }
  std::vector<std::unique_ptr<store::RecordingReader>> child_readers;
  SessionOptions session;
  session.open_fork_child = fork_child_opener(options, child_readers);
  Status served = serve_connection(conn->get(), *target, session);
  conn.reset();
  target.reset();
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  sigaction(SIGINT, &old_int, nullptr);
  if (!served.ok()) return served.take_error();
  return exit_code_of(status);
}

}  // namespace slsdbg::gdbserver
