#include "recorder/process/proc_signals.h"

#include <cstring>
#include <fstream>
#include <string>

#include "recorder/process/inject.h"

namespace slsdbg::process {

Result<PendingSignals> read_pending_signals(pid_t tgid, pid_t tid) {
  std::string path = "/proc/" + std::to_string(tgid) + "/task/" + std::to_string(tid) + "/status";
  std::ifstream in(path);
  if (!in) return Error::from_errno("open(" + path + ")");
  PendingSignals p;
  int found = 0;
  std::string line;
  while (std::getline(in, line)) {
    auto value = [&](const char* key, uint64_t& out) {
      size_t len = std::strlen(key);
      if (line.compare(0, len, key) != 0) return;
      out = std::stoull(line.substr(len), nullptr, 16);
      ++found;
    };
    value("SigPnd:", p.thread_pending);
    value("ShdPnd:", p.shared_pending);
    value("SigBlk:", p.blocked);
  }
  if (found != 3) return Error::msg(path + ": missing SigPnd/ShdPnd/SigBlk");
  return p;
}

Result<HandlersAndBrk> read_handlers_and_brk(Task& task) {
  auto regs = TRY(run_injected_stub(task, sigaction_dump_stub(), [](user_regs_struct&) {}));
  uint64_t raw[64 * 4];
  TRY(task.read_memory(RemoteAddr(kInjectScratchAddr), std::span<uint8_t>(reinterpret_cast<uint8_t*>(raw), sizeof raw)));
  HandlersAndBrk out;
  for (int i = 0; i < 64; ++i) {
    out.actions[i].handler = raw[4 * i + 0];
    out.actions[i].flags = raw[4 * i + 1];
    out.actions[i].restorer = raw[4 * i + 2];
    out.actions[i].mask = raw[4 * i + 3];
  }
  out.brk = regs.rax;
  return out;
}

}  // namespace slsdbg::process
