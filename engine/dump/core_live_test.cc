// Checks the core writer and the unwinder on a LIVE process stopped at a known
// point (tests/programs/dump_chain stopped by SIGSTOP inside dump_gamma): the
// core is well-formed ELF (PT_NOTE first, page-aligned PT_LOADs, mode 0600),
// real gdb shows the call chain and the stack, heap and global values, lldb
// shows the same frames, readelf lists every note, and our libunwind-based
// backtrace names the same functions as gdb.
#include <elf.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "engine/dump/backtrace.h"
#include "engine/dump/core_writer.h"
#include "engine/dump/disassembler.h"
#include "engine/dump/module_cache.h"
#include "engine/dump/testing/live_process.h"
#include "engine/dump/unwinder.h"

namespace slsdbg::dump {
namespace {

std::string build_dir() {
  const char* d = std::getenv("SLSDBG_BUILD_DIR");
  return d ? d : ".";
}

// A fresh directory under $TMPDIR (or /tmp).
std::string make_temp_dir(const char* name) {
  const char* base = std::getenv("TMPDIR");
  std::string tmpl = std::string(base && *base ? base : "/tmp") + "/" + name + "-XXXXXX";
  std::vector<char> buf(tmpl.begin(), tmpl.end());
  buf.push_back(0);
  return ::mkdtemp(buf.data()) ? std::string(buf.data()) : std::string();
}

std::string fixture() { return build_dir() + "/tests/programs/dump_chain"; }

// Line of the fixture's source holding `text` (1-based), 0 if absent.
int fixture_line(const std::string& text) {
  const char* src = std::getenv("SLSDBG_SOURCE_DIR");
  std::ifstream in(std::string(src ? src : ".") + "/tests/programs/dump_chain.c");
  std::string line;
  for (int n = 1; std::getline(in, line); n++)
    if (line.find(text) != std::string::npos) return n;
  return 0;
}

std::string run(const std::string& cmd) {
  std::string out;
  FILE* p = ::popen((cmd + " 2>&1").c_str(), "r");
  if (!p) return out;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = std::fread(buf.data(), 1, buf.size(), p)) > 0) out.append(buf.data(), n);
  ::pclose(p);
  return out;
}

// Function names of "#N  0x... in NAME (" or "#N  NAME (" lines of gdb's bt.
std::vector<std::string> gdb_functions(const std::string& bt) {
  std::vector<std::string> out;
  std::regex frame(R"(^#\d+\s+(?:0x[0-9a-f]+ in )?(\S+) \()");
  std::istringstream in(bt);
  std::string line;
  std::smatch m;
  while (std::getline(in, line))
    if (std::regex_search(line, m, frame)) out.push_back(m[1]);
  return out;
}

class LiveCore : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = make_temp_dir("slsdbg-dump-test");
    ASSERT_FALSE(dir_.empty());
    core_ = dir_ + "/core";
    auto pid = testing::spawn_until_signal({fixture(), "stop"}, SIGSTOP);
    ASSERT_TRUE(pid.ok()) << pid.error().message;
    pid_ = *pid;
    auto state = testing::read_live_state(pid_, {pid_});
    ASSERT_TRUE(state.ok()) << state.error().message;
    state_ = new store::ProcessState(std::move(*state));
    memory_ = new testing::LiveMemory(pid_);
    auto summary = write_core(*state_, *memory_, core_, CoreOptions{});
    ASSERT_TRUE(summary.ok()) << summary.error().message;
    summary_ = *summary;
  }
  static void TearDownTestSuite() {
    if (pid_ > 0) testing::kill_traced(pid_);
    delete memory_;
    delete state_;
    run("rm -rf '" + dir_ + "'");
  }

  static std::string gdb(const std::string& commands) {
    return run("gdb -batch -nx -ex 'set debuginfod enabled off' " + fixture() + " " + core_ + " " + commands);
  }

  static inline std::string dir_, core_;
  static inline pid_t pid_ = -1;
  static inline store::ProcessState* state_ = nullptr;
  static inline testing::LiveMemory* memory_ = nullptr;
  static inline CoreSummary summary_;
};

TEST_F(LiveCore, IsAnElfCoreWithNotesFirstAndAlignedLoads) {
  struct stat st{};
  ASSERT_EQ(::stat(core_.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  EXPECT_EQ(static_cast<uint64_t>(st.st_size), summary_.file_size);

  std::ifstream in(core_, std::ios::binary);
  Elf64_Ehdr eh{};
  in.read(reinterpret_cast<char*>(&eh), sizeof eh);
  ASSERT_EQ(std::string(reinterpret_cast<char*>(eh.e_ident), 4), std::string(ELFMAG));
  EXPECT_EQ(eh.e_type, ET_CORE);
  EXPECT_EQ(eh.e_machine, EM_X86_64);
  std::vector<Elf64_Phdr> ph(eh.e_phnum);
  in.seekg(static_cast<std::streamoff>(eh.e_phoff));
  in.read(reinterpret_cast<char*>(ph.data()), static_cast<std::streamsize>(ph.size() * sizeof(Elf64_Phdr)));
  ASSERT_GE(ph.size(), 2u);
  EXPECT_EQ(ph[0].p_type, PT_NOTE);
  EXPECT_EQ(ph.size() - 1, summary_.load_segments);

  size_t vsyscall = 0;
  for (const auto& m : state_->mappings) vsyscall += m.path == "[vsyscall]";
  EXPECT_EQ(summary_.load_segments, state_->mappings.size() - vsyscall);
  for (size_t i = 1; i < ph.size(); i++) {
    EXPECT_EQ(ph[i].p_type, PT_LOAD);
    EXPECT_EQ(ph[i].p_offset % 4096, 0u);
    EXPECT_TRUE(ph[i].p_filesz == 0 || ph[i].p_filesz == ph[i].p_memsz);
    if (i > 1) {
      EXPECT_GT(ph[i].p_vaddr, ph[i - 1].p_vaddr);
    }
    for (const auto& m : state_->mappings) {
      if (m.start != ph[i].p_vaddr) continue;
      if (m.path == "[vvar]" || !(m.prot & PROT_READ)) {
        EXPECT_EQ(ph[i].p_filesz, 0u) << m.path;
      }
      if (m.path == "[stack]") {
        EXPECT_EQ(ph[i].p_filesz, m.end - m.start);
      }
      EXPECT_EQ((ph[i].p_flags & PF_X) != 0, (m.prot & PROT_EXEC) != 0);
    }
  }
}

TEST_F(LiveCore, GdbShowsTheCallChainAndValues) {
  std::string out = gdb(
      "-ex bt -ex 'frame function dump_gamma' -ex 'print answer' -ex 'print ratio' -ex 'print word' "
      "-ex 'print dump_global_counter' -ex 'print *dump_heap_node' -ex 'frame function dump_beta' "
      "-ex 'print beta_local'");
  auto fns = gdb_functions(out);
  std::vector<std::string> chain = {"dump_gamma", "dump_beta", "dump_alpha", "main"};
  auto it = std::search(fns.begin(), fns.end(), chain.begin(), chain.end());
  EXPECT_NE(it, fns.end()) << out;
  EXPECT_NE(out.find("$1 = 42"), std::string::npos) << out;
  EXPECT_NE(out.find("$2 = 2.5"), std::string::npos) << out;
  EXPECT_NE(out.find("$3 = \"checkpoint"), std::string::npos) << out;
  EXPECT_NE(out.find("$4 = 49"), std::string::npos) << out;
  EXPECT_NE(out.find("$5 = {id = 123456789, name = \"heap-node"), std::string::npos) << out;
  EXPECT_NE(out.find("$6 = 1001"), std::string::npos) << out;
  EXPECT_NE(out.find("Program terminated with signal SIGSTOP"), std::string::npos) << out;
}

TEST_F(LiveCore, GdbReadsRegistersFromTheNotes) {
  std::string out = gdb("-ex 'printf \"rip=%lx rsp=%lx\\n\", $rip, $rsp' -ex 'print $mxcsr' -ex 'info threads'");
  char want[64];
  std::snprintf(want, sizeof want, "rip=%llx rsp=%llx", static_cast<unsigned long long>(state_->threads[0].regs.rip),
                static_cast<unsigned long long>(state_->threads[0].regs.rsp));
  EXPECT_NE(out.find(want), std::string::npos) << out;
  EXPECT_NE(out.find("[ IM DM ZM OM UM PM ]"), std::string::npos) << out;  // default MXCSR from FPREGSET/XSTATE
  EXPECT_NE(out.find("LWP " + std::to_string(pid_)), std::string::npos) << out;
}

TEST_F(LiveCore, LldbShowsTheSameFrames) {
  std::string out = run("lldb --batch --no-lldbinit -c " + core_ + " " + fixture() + " -o 'thread backtrace'");
  std::vector<std::string> chain = {"dump_gamma", "dump_beta", "dump_alpha", "main"};
  size_t pos = 0;
  for (const auto& fn : chain) {
    size_t at = out.find("`" + fn, pos);
    ASSERT_NE(at, std::string::npos) << "lldb lacks frame " << fn << ":\n" << out;
    pos = at;
  }
}

TEST_F(LiveCore, ReadelfListsEveryNote) {
  std::string out = run("readelf -n " + core_ + " | grep -E '^ +(CORE|LINUX) '");
  for (const char* note : {"NT_PRSTATUS", "NT_FPREGSET", "NT_X86_XSTATE", "NT_PRPSINFO", "NT_SIGINFO", "NT_AUXV",
                           "NT_FILE"})
    EXPECT_NE(out.find(note), std::string::npos) << note << " missing:\n" << out;
}

TEST_F(LiveCore, GdbListsTheMappedFilesFromNtFile) {
  // readelf 2.40 cannot decode NT_FILE; gdb's `info proc mappings` on a core reads it.
  std::string out = gdb("-ex 'info proc mappings'");
  for (const auto& m : state_->mappings) {
    if (m.path.empty() || m.path[0] != '/') continue;
    char start[32];
    std::snprintf(start, sizeof start, "0x%llx", static_cast<unsigned long long>(m.start));
    std::regex row(std::string(start) + R"(\s+0x[0-9a-f]+\s+0x[0-9a-f]+\s+0x[0-9a-f]+\s+)" + m.path);
    EXPECT_TRUE(std::regex_search(out, row)) << m.path << " at " << start << " missing:\n" << out;
  }
}

// "#N  0x... in NAME (" lines of gdb's bt whose source is the fixture: (pc, name).
std::vector<std::pair<uint64_t, std::string>> gdb_fixture_frames(const std::string& bt) {
  std::vector<std::pair<uint64_t, std::string>> out;
  std::regex frame(R"(^#\d+\s+0x([0-9a-f]+) in (\S+) \(.*dump_chain\.c:\d+$)");
  std::istringstream in(bt);
  std::string line;
  std::smatch m;
  while (std::getline(in, line))
    if (std::regex_search(line, m, frame)) out.emplace_back(std::stoull(m[1], nullptr, 16), m[2]);
  return out;
}

TEST_F(LiveCore, UnwinderAgreesWithGdb) {
  auto gdb_frames = gdb_fixture_frames(gdb("-ex bt"));
  ModuleCache modules(*state_, *memory_);
  auto frames = unwind_thread(state_->threads[0], *memory_, modules);
  ASSERT_TRUE(frames.ok()) << frames.error().message;
  EXPECT_EQ((*frames)[0].pc, state_->threads[0].regs.rip);
  std::vector<std::pair<uint64_t, std::string>> ours;
  for (const auto& f : *frames)
    if (f.where.module == fixture() && f.where.function != "_start") ours.emplace_back(f.pc, f.where.function);
  ASSERT_EQ(gdb_frames.size(), 5u);  // pause_here dump_gamma dump_beta dump_alpha main
  EXPECT_EQ(ours, gdb_frames);
  for (const auto& f : *frames)
    if (f.where.function == "dump_gamma") {
      EXPECT_NE(f.where.file.find("dump_chain.c"), std::string::npos);
      EXPECT_EQ(f.where.line, fixture_line("pause_here(mode, ms);"));
    }
}

TEST_F(LiveCore, DisassemblyMarksThePcAfterACall) {
  ModuleCache modules(*state_, *memory_);
  auto frames = unwind_thread(state_->threads[0], *memory_, modules);
  ASSERT_TRUE(frames.ok());
  const Frame* gamma = nullptr;
  for (const auto& f : *frames)
    if (f.where.function == "dump_gamma") gamma = &f;
  ASSERT_NE(gamma, nullptr);
  auto insns = disassemble_around(*memory_, gamma->pc, gamma->where.function_start);
  ASSERT_TRUE(insns.ok()) << insns.error().message;
  size_t at = insns->size();
  for (size_t i = 0; i < insns->size(); i++)
    if ((*insns)[i].at_pc) at = i;
  ASSERT_LT(at, insns->size());
  ASSERT_GT(at, 0u);
  EXPECT_EQ((*insns)[at - 1].text.rfind("call", 0), 0u) << (*insns)[at - 1].text;  // a return address follows a call
}

TEST_F(LiveCore, BacktraceTextAndJsonNameFramesFilesAndThePc) {
  auto threads = backtrace_threads(*state_, *memory_, Disasm::Yes);
  ASSERT_EQ(threads.size(), 1u);
  EXPECT_EQ(threads[0].error, "");
  std::string text = format_text(threads);
  std::string line = std::to_string(fixture_line("pause_here(mode, ms);"));
  EXPECT_TRUE(std::regex_search(
      text, std::regex(R"(#\d+  0x[0-9a-f]{16} in dump_gamma\+0x[0-9a-f]+ at \S*dump_chain\.c:)" + line +
                       R"( \(\S*dump_chain\))")))
      << text;
  // libc's own frames are named from its separate debug file (libc6-dbg).
  EXPECT_NE(text.find("in __pthread_kill_implementation"), std::string::npos) << text;
  EXPECT_NE(text.find("=> "), std::string::npos) << text;
  std::string json = format_json(threads, R"({"checkpoint":3})");
  EXPECT_NE(json.find("\"checkpoint\": 3"), std::string::npos) << json;
  EXPECT_NE(json.find("\"function\": \"dump_alpha\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"at_pc\": true"), std::string::npos) << json;
}

// Every thread gets its notes: gdb sees three LWPs, each with its own stack,
// and our unwinder gives each thread the same fixture frames as gdb.
TEST(LiveThreadsCore, EachThreadHasItsOwnRegistersAndStack) {
  std::string prog = build_dir() + "/tests/programs/dump_threads";
  int out[2];
  ASSERT_EQ(::pipe(out), 0);
  pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::dup2(out[1], STDOUT_FILENO);
    ::execl(prog.c_str(), prog.c_str(), nullptr);
    ::_exit(127);
  }
  ::close(out[1]);
  char ready[6] = {};
  ASSERT_EQ(::read(out[0], ready, 5), 5);
  ::close(out[0]);
  auto tids = testing::seize_all_threads(pid);
  ASSERT_TRUE(tids.ok()) << tids.error().message;
  ASSERT_EQ(tids->size(), 3u);
  auto state = testing::read_live_state(pid, *tids);
  ASSERT_TRUE(state.ok()) << state.error().message;
  testing::LiveMemory memory(pid);
  std::string dir = make_temp_dir("slsdbg-dump-threads");
  ASSERT_FALSE(dir.empty());
  std::string core = dir + "/core";
  auto summary = write_core(*state, memory, core, CoreOptions{});
  ASSERT_TRUE(summary.ok()) << summary.error().message;
  EXPECT_EQ(summary->threads, 3u);

  std::string gdb = run("gdb -batch -nx -ex 'set debuginfod enabled off' " + prog + " " + core +
                        " -ex 'info threads' -ex 'thread apply all bt'");
  auto threads = backtrace_threads(*state, memory, Disasm::No);
  ASSERT_EQ(threads.size(), 3u);
  for (const auto& t : threads) {
    // gdb's section for this LWP: from "Thread N (LWP tid" to the next "Thread ".
    std::string marker = "(LWP " + std::to_string(t.tid.value) + ")";
    size_t begin = gdb.rfind("\nThread ", gdb.rfind(marker));
    ASSERT_NE(begin, std::string::npos) << marker << "\n" << gdb;
    size_t end = gdb.find("\nThread ", begin + 1);
    std::string section = gdb.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
    std::vector<std::string> theirs;
    for (const auto& f : gdb_functions(section))
      if (f.rfind("dump_", 0) == 0 || f == "main") theirs.push_back(f);
    std::vector<std::string> ours;
    for (const auto& f : t.frames)
      if (f.where.function.rfind("dump_", 0) == 0 || f.where.function == "main") ours.push_back(f.where.function);
    EXPECT_EQ(ours, theirs) << section;
    if (t.tid.value == pid) {
      EXPECT_EQ(ours, (std::vector<std::string>{"dump_main_wait", "main"}));
    } else {
      EXPECT_EQ(ours, (std::vector<std::string>{"dump_worker_inner", "dump_worker_outer"}));
    }
  }
  std::string lldb = run("lldb --batch --no-lldbinit -c " + core + " " + prog + " -o 'thread list'");
  for (pid_t tid : *tids) EXPECT_NE(lldb.find("tid = " + std::to_string(tid)), std::string::npos) << lldb;
  testing::kill_traced(pid);
  run("rm -rf '" + dir + "'");
}

TEST(CoreWriter, UnwritableOutputPathIsAnError) {
  store::ProcessState state;
  state.threads.emplace_back();
  testing::LiveMemory memory(::getpid());
  auto r = write_core(state, memory, "/nonexistent-dir/core", CoreOptions{});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("/nonexistent-dir/core"), std::string::npos) << r.error().message;
  EXPECT_EQ(r.error().errno_value, ENOENT);
}

}  // namespace
}  // namespace slsdbg::dump
