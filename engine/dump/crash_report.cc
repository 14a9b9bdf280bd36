#include "engine/dump/crash_report.h"

#include <signal.h>

#include <cstring>

#include "common/signal_name.h"
#include "engine/dump/backtrace.h"
#include "engine/dump/recording_memory.h"

namespace slsdbg::dump {

namespace {

std::string hex(uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

// Fault kinds whose si_addr names the faulting address.
bool has_fault_address(int signo, int code) {
  return code > 0 && (signo == SIGSEGV || signo == SIGBUS || signo == SIGILL || signo == SIGFPE);
}

std::string code_name(int signo, int code) {
  if (code == SI_KERNEL) return "SI_KERNEL";
  if (code == SI_TKILL) return "SI_TKILL";
  if (code == SI_USER) return "SI_USER";
  if (signo == SIGSEGV && code == SEGV_MAPERR) return "SEGV_MAPERR";
  if (signo == SIGSEGV && code == SEGV_ACCERR) return "SEGV_ACCERR";
  if (signo == SIGBUS && code == BUS_ADRERR) return "BUS_ADRERR";
  if (signo == SIGFPE && code == FPE_INTDIV) return "FPE_INTDIV";
  if (signo == SIGILL && code == ILL_ILLOPN) return "ILL_ILLOPN";
  return "code " + std::to_string(code);
}

}  // namespace

Result<std::optional<std::string>> describe_crash(const store::RecordingReader& reader) {
  auto cps = reader.checkpoints();
  if (cps.empty() || cps.back().reason != "crash") return std::optional<std::string>{};
  const CheckpointId k = cps.back().id;
  store::ProcessState state = TRY(reader.process_state(k));
  if (state.threads.empty() || state.fatal_siginfo.size() != sizeof(siginfo_t))
    return Error::msg("crash checkpoint " + std::to_string(k.value) + " holds no siginfo");
  siginfo_t si;
  std::memcpy(&si, state.fatal_siginfo.data(), sizeof si);
  std::string line = signal_name(si.si_signo) + " (" + code_name(si.si_signo, si.si_code);
  if (has_fault_address(si.si_signo, si.si_code)) line += ", address " + hex(reinterpret_cast<uint64_t>(si.si_addr));
  line += ")";
  RecordingMemory memory(reader, k);
  store::ProcessState first_thread = state;
  first_thread.threads.resize(1);
  auto threads = backtrace_threads(first_thread, memory, Disasm::No);
  if (!threads.empty() && !threads[0].frames.empty()) {
    std::string frame = format_frame(0, threads[0].frames[0]);
    line += " at " + frame.substr(frame.find("0x"));  // drop "#0  "
  } else {
    line += " at " + hex(state.threads[0].regs.rip);
  }
  return std::optional<std::string>{line};
}

}  // namespace slsdbg::dump
