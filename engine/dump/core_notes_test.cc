// Checks the PT_NOTE payload byte by byte for a two-thread process state: the
// kernel's note order (thread 0: PRSTATUS, PRPSINFO, SIGINFO, AUXV, FILE,
// FPREGSET, X86_XSTATE; thread 1: PRSTATUS, FPREGSET, X86_XSTATE), owner names,
// 4-byte padding, registers and tids in PRSTATUS, and NT_FILE's layout
// (count, page size, start/end/page offset, then the names) listing only
// file-backed mappings; [vsyscall] is left out and [vvar] has no contents.
#include "engine/dump/core_notes.h"

#include <elf.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/procfs.h>

#include <cpuid.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "engine/dump/xsave_layout.h"

namespace slsdbg::dump {
namespace {

struct Note {
  std::string name;
  uint32_t type;
  std::vector<uint8_t> desc;
};

std::vector<Note> parse(const std::vector<uint8_t>& blob) {
  std::vector<Note> out;
  size_t off = 0;
  while (off + sizeof(Elf64_Nhdr) <= blob.size()) {
    Elf64_Nhdr h;
    std::memcpy(&h, blob.data() + off, sizeof h);
    off += sizeof h;
    Note n;
    n.type = h.n_type;
    n.name.assign(reinterpret_cast<const char*>(blob.data() + off), h.n_namesz ? h.n_namesz - 1 : 0);
    off += (h.n_namesz + 3) / 4 * 4;
    n.desc.assign(blob.begin() + static_cast<long>(off), blob.begin() + static_cast<long>(off + h.n_descsz));
    off += (h.n_descsz + 3) / 4 * 4;
    out.push_back(std::move(n));
  }
  EXPECT_EQ(off, blob.size()) << "notes do not end on their padding";
  return out;
}

store::Mapping mapping(uint64_t start, uint64_t end, uint32_t prot, std::string path, uint64_t off = 0) {
  store::Mapping m;
  m.start = start;
  m.end = end;
  m.prot = prot;
  m.path = std::move(path);
  m.file_offset = off;
  if (m.path.empty() || m.path[0] != '/') m.flags |= store::flag(store::MappingFlags::Anonymous);
  return m;
}

store::ProcessState two_threads() {
  store::ProcessState s;
  s.pid = 4242;
  for (int i = 0; i < 2; i++) {
    store::ThreadState t;
    t.tid = Tid(4242 + i);
    t.regs.rip = 0x401000 + i;
    t.regs.rsp = 0x7ffff000 - i * 0x1000;
    t.fpregs.mxcsr = 0x1f80;
    t.xsave.assign(2432, static_cast<uint8_t>(i + 1));
    t.sigmask = 0x100 << i;
    s.threads.push_back(t);
  }
  s.mappings = {mapping(0x400000, 0x401000, PROT_READ, "/bin/prog", 0),
                mapping(0x401000, 0x403000, PROT_READ | PROT_EXEC, "/bin/prog", 0x1000),
                mapping(0x600000, 0x621000, PROT_READ | PROT_WRITE, "[heap]"),
                mapping(0x7fff0000, 0x7fff4000, PROT_READ, "[vvar]"),
                mapping(0x7fff4000, 0x7fff6000, PROT_READ | PROT_EXEC, "[vdso]"),
                mapping(0xffffffffff600000, 0xffffffffff601000, PROT_EXEC, "[vsyscall]")};
  s.auxv = {6, 0, 0, 0, 0, 0, 0, 0, 0, 0x10, 0, 0, 0, 0, 0, 0};  // AT_PAGESZ 4096
  s.exe = "/bin/prog";
  s.cmdline = {"/bin/prog", "--flag", "x"};
  return s;
}

TEST(CoreNotes, KernelOrderOwnersAndPadding) {
  auto notes = parse(build_core_notes(two_threads(), NoteOptions{SIGSTOP}));
  std::vector<uint32_t> types;
  for (const auto& n : notes) types.push_back(n.type);
  std::vector<uint32_t> want = {NT_PRSTATUS, NT_PRPSINFO, NT_SIGINFO,  NT_AUXV,       NT_FILE,
                                NT_FPREGSET, NT_X86_XSTATE, NT_PRSTATUS, NT_FPREGSET, NT_X86_XSTATE};
  EXPECT_EQ(types, want);
  for (const auto& n : notes) EXPECT_EQ(n.name, n.type == NT_X86_XSTATE ? "LINUX" : "CORE");
}

TEST(CoreNotes, PrstatusCarriesTidRegistersAndSignalState) {
  auto notes = parse(build_core_notes(two_threads(), NoteOptions{SIGSTOP}));
  int seen = 0;
  for (const auto& n : notes) {
    if (n.type != NT_PRSTATUS) continue;
    ASSERT_EQ(n.desc.size(), sizeof(elf_prstatus));
    elf_prstatus st;
    std::memcpy(&st, n.desc.data(), sizeof st);
    EXPECT_EQ(st.pr_pid, 4242 + seen);
    EXPECT_EQ(st.pr_cursig, SIGSTOP);
    EXPECT_EQ(st.pr_sighold, 0x100ul << seen);
    user_regs_struct regs;
    std::memcpy(&regs, &st.pr_reg, sizeof regs);
    EXPECT_EQ(regs.rip, 0x401000u + seen);
    seen++;
  }
  EXPECT_EQ(seen, 2);
  for (const auto& n : notes) {
    if (n.type == NT_X86_XSTATE) {
      EXPECT_EQ(n.desc.size(), 2432u);
    }
  }
}

TEST(CoreNotes, PrpsinfoNamesTheProgramAndArguments) {
  auto notes = parse(build_core_notes(two_threads(), NoteOptions{SIGSTOP}));
  for (const auto& n : notes) {
    if (n.type != NT_PRPSINFO) continue;
    ASSERT_EQ(n.desc.size(), sizeof(elf_prpsinfo));
    elf_prpsinfo ps;
    std::memcpy(&ps, n.desc.data(), sizeof ps);
    EXPECT_STREQ(ps.pr_fname, "prog");
    EXPECT_STREQ(ps.pr_psargs, "/bin/prog --flag x");
    EXPECT_EQ(ps.pr_pid, 4242);
    return;
  }
  FAIL() << "no NT_PRPSINFO";
}

TEST(CoreNotes, NtFileListsOnlyFileBackedMappings) {
  auto notes = parse(build_core_notes(two_threads(), NoteOptions{SIGSTOP}));
  for (const auto& n : notes) {
    if (n.type != NT_FILE) continue;
    const uint64_t* w = reinterpret_cast<const uint64_t*>(n.desc.data());
    ASSERT_EQ(w[0], 2u);     // count
    EXPECT_EQ(w[1], 4096u);  // page size
    EXPECT_EQ(w[2], 0x400000u);
    EXPECT_EQ(w[3], 0x401000u);
    EXPECT_EQ(w[4], 0u);
    EXPECT_EQ(w[5], 0x401000u);
    EXPECT_EQ(w[6], 0x403000u);
    EXPECT_EQ(w[7], 1u);     // file offset in pages
    std::string names(reinterpret_cast<const char*>(n.desc.data() + 8 * 8), n.desc.size() - 8 * 8);
    EXPECT_EQ(names, std::string("/bin/prog\0/bin/prog\0", 20));
    return;
  }
  FAIL() << "no NT_FILE";
}

TEST(CoreNotes, VsyscallIsLeftOutAndVvarHasNoContents) {
  auto s = two_threads();
  auto maps = core_mappings(s);
  ASSERT_EQ(maps.size(), 5u);
  for (const auto& m : maps) EXPECT_NE(m.path, "[vsyscall]");
  for (const auto& m : maps) EXPECT_EQ(mapping_has_contents(m), m.path != "[vvar]") << m.path;
  EXPECT_FALSE(mapping_has_contents(mapping(0x1000, 0x2000, PROT_NONE, "")));
}

// A crash checkpoint's siginfo is the core's signal: pr_cursig and NT_SIGINFO.
TEST(CoreNotes, FatalSiginfoIsTheCoresSignal) {
  store::ProcessState s = two_threads();
  siginfo_t si{};
  si.si_signo = SIGSEGV;
  si.si_code = SEGV_MAPERR;
  si.si_addr = reinterpret_cast<void*>(0x10);
  s.fatal_siginfo.assign(reinterpret_cast<const uint8_t*>(&si), reinterpret_cast<const uint8_t*>(&si) + sizeof si);
  int checked = 0;
  for (const auto& n : parse(build_core_notes(s, NoteOptions{SIGSTOP}))) {
    if (n.type == NT_PRSTATUS) {
      elf_prstatus st;
      std::memcpy(&st, n.desc.data(), sizeof st);
      EXPECT_EQ(st.pr_cursig, SIGSEGV);
      checked++;
    }
    if (n.type == NT_SIGINFO) {
      ASSERT_EQ(n.desc.size(), sizeof(siginfo_t));
      siginfo_t got;
      std::memcpy(&got, n.desc.data(), sizeof got);
      EXPECT_EQ(got.si_signo, SIGSEGV);
      EXPECT_EQ(got.si_code, SEGV_MAPERR);
      EXPECT_EQ(got.si_addr, reinterpret_cast<void*>(0x10));
      checked++;
    }
  }
  EXPECT_EQ(checked, 3);
}

// GDB sizes .reg-xstate from XCR0 and reads PKRU at 2688; this CPU's own
// offset (CPUID 0xD.9) may differ (AMD: 2432).
TEST(CoreNotes, XsaveIsReLaidForGdb) {
  unsigned size = 0, offset = 0, ecx = 0, edx = 0;
  __get_cpuid_count(0xd, 9, &size, &offset, &ecx, &edx);
  std::vector<uint8_t> area(std::max<size_t>(2696, offset + 8), 0);
  const uint64_t xcr0 = 0x207;  // x87, SSE, AVX, PKRU
  std::memcpy(area.data() + 464, &xcr0, sizeof xcr0);
  area[576] = 0xa5;  // AVX: same offset everywhere
  if (size == 8) area[offset] = 0x5a;
  std::vector<uint8_t> out = xsave_for_gdb(area);
  ASSERT_GE(out.size(), 2696u);
  EXPECT_EQ(out[576], 0xa5);
  if (size == 8) {
    EXPECT_EQ(out[2688], 0x5a) << "PKRU at GDB's offset";
  }
  std::vector<uint8_t> bogus(2432, 1);  // no kernel XCR0: unchanged
  EXPECT_EQ(xsave_for_gdb(bogus).size(), 2432u);
}

}  // namespace
}  // namespace slsdbg::dump
