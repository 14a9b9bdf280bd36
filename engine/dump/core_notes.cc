#include "engine/dump/core_notes.h"

#include <elf.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/procfs.h>

#include <algorithm>
#include <cstring>

#include "common/ids.h"
#include "engine/dump/xsave_layout.h"

namespace slsdbg::dump {

namespace {

constexpr uint32_t kNoteAlign = 4;  // x86-64 Linux cores pad name and desc to 4

void append_note(std::vector<uint8_t>& out, const char* name, uint32_t type, const void* desc, size_t size) {
  auto pad = [&] {
    while (out.size() % kNoteAlign) out.push_back(0);
  };
  Elf64_Nhdr hdr{};
  hdr.n_namesz = static_cast<Elf64_Word>(std::strlen(name) + 1);
  hdr.n_descsz = static_cast<Elf64_Word>(size);
  hdr.n_type = type;
  const auto* h = reinterpret_cast<const uint8_t*>(&hdr);
  out.insert(out.end(), h, h + sizeof hdr);
  out.insert(out.end(), name, name + hdr.n_namesz);
  pad();
  const auto* d = static_cast<const uint8_t*>(desc);
  out.insert(out.end(), d, d + size);
  pad();
}

template <typename T>
void append_value(std::vector<uint8_t>& out, const T& v) {
  const auto* p = reinterpret_cast<const uint8_t*>(&v);
  out.insert(out.end(), p, p + sizeof v);
}

bool is_named(const store::Mapping& m, const char* name) { return m.path == name; }

bool is_file_backed(const store::Mapping& m) {
  return !(m.flags & store::flag(store::MappingFlags::Anonymous)) && !m.path.empty() && m.path[0] == '/';
}

elf_prstatus make_prstatus(const store::ThreadState& t, const NoteOptions& options, int32_t pid) {
  elf_prstatus st{};
  st.pr_info.si_signo = options.signal;
  st.pr_cursig = static_cast<short>(options.signal);
  st.pr_sigpend = t.sigpending;
  st.pr_sighold = t.sigmask;
  st.pr_pid = t.tid.value;
  st.pr_pgrp = pid;
  st.pr_sid = pid;
  static_assert(sizeof st.pr_reg == sizeof t.regs, "elf_gregset_t is user_regs_struct on x86-64");
  std::memcpy(&st.pr_reg, &t.regs, sizeof t.regs);
  st.pr_fpvalid = 1;
  return st;
}

elf_prpsinfo make_prpsinfo(const store::ProcessState& state, const NoteOptions& /*options*/) {
  elf_prpsinfo ps{};
  ps.pr_state = 3;     // index of 'T' in the kernel's "RSDTZW"
  ps.pr_sname = 'T';   // the process is stopped at the checkpoint
  ps.pr_pid = state.pid;
  ps.pr_pgrp = state.pid;
  ps.pr_sid = state.pid;
  // FIXME: the store does not keep uid/gid/ppid; they are reported as 0.
  std::string exe = state.exe;
  if (exe.empty() && !state.cmdline.empty()) exe = state.cmdline[0];
  std::string base = exe.substr(exe.find_last_of('/') == std::string::npos ? 0 : exe.find_last_of('/') + 1);
  std::strncpy(ps.pr_fname, base.c_str(), sizeof ps.pr_fname - 1);
  std::string args;
  for (const auto& a : state.cmdline) {
    if (!args.empty()) args += ' ';
    args += a;
  }
  std::strncpy(ps.pr_psargs, args.c_str(), sizeof ps.pr_psargs - 1);
  return ps;
}

std::vector<uint8_t> make_nt_file(const std::vector<store::Mapping>& mappings) {
  // long count; long page_size; {start, end, file_ofs in pages}[count]; names
  std::vector<const store::Mapping*> files;
  for (const auto& m : mappings)
    if (is_file_backed(m)) files.push_back(&m);
  std::vector<uint8_t> out;
  append_value<uint64_t>(out, files.size());
  append_value<uint64_t>(out, kPageSize);
  for (const auto* m : files) {
    append_value<uint64_t>(out, m->start);
    append_value<uint64_t>(out, m->end);
    append_value<uint64_t>(out, m->file_offset / kPageSize);
  }
  for (const auto* m : files) out.insert(out.end(), m->path.c_str(), m->path.c_str() + m->path.size() + 1);
  return out;
}

void append_thread_fp_notes(std::vector<uint8_t>& out, const store::ThreadState& t) {
  append_note(out, "CORE", NT_FPREGSET, &t.fpregs, sizeof t.fpregs);
  if (t.xsave.empty()) return;
  const std::vector<uint8_t> xsave = xsave_for_gdb(t.xsave);
  append_note(out, "LINUX", NT_X86_XSTATE, xsave.data(), xsave.size());
}

}  // namespace

std::vector<store::Mapping> core_mappings(const store::ProcessState& state) {
  std::vector<store::Mapping> out;
  for (const auto& m : state.mappings) {
    if (is_named(m, "[vsyscall]") || m.end <= m.start) continue;
    out.push_back(m);
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.start < b.start; });
  return out;
}

bool mapping_has_contents(const store::Mapping& m) {
  // [vvar] holds kernel time data behind a PFN mapping: unreadable through
  // /proc/PID/mem and meaningless in a snapshot (the kernel skips it too).
  if (is_named(m, "[vvar]") || is_named(m, "[vvar_vclock]")) return false;
  return (m.prot & PROT_READ) != 0;
}

std::vector<uint8_t> build_core_notes(const store::ProcessState& state, const NoteOptions& requested) {
  std::vector<uint8_t> out;
  // A crash checkpoint carries the fatal signal: the core reports it, as the
  // kernel's own core of that death would.
  NoteOptions options = requested;
  siginfo_t si{};
  si.si_signo = options.signal;
  si.si_code = SI_USER;
  if (state.fatal_siginfo.size() == sizeof si) {
    std::memcpy(&si, state.fatal_siginfo.data(), sizeof si);
    options.signal = si.si_signo;
  }
  auto mappings = core_mappings(state);
  for (size_t i = 0; i < state.threads.size(); i++) {
    const auto& t = state.threads[i];
    auto st = make_prstatus(t, options, state.pid);
    append_note(out, "CORE", NT_PRSTATUS, &st, sizeof st);
    if (i == 0) {
      auto ps = make_prpsinfo(state, options);
      append_note(out, "CORE", NT_PRPSINFO, &ps, sizeof ps);
      append_note(out, "CORE", NT_SIGINFO, &si, sizeof si);
      if (!state.auxv.empty()) append_note(out, "CORE", NT_AUXV, state.auxv.data(), state.auxv.size());
      auto files = make_nt_file(mappings);
      append_note(out, "CORE", NT_FILE, files.data(), files.size());
    }
    append_thread_fp_notes(out, t);
  }
  return out;
}

}  // namespace slsdbg::dump
