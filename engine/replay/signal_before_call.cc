#include "engine/replay/signal_before_call.h"

#include <signal.h>

#include <cstring>

#include "process/signal_policy.h"

namespace slsdbg::replay {

std::vector<size_t> signals_before_reissue(const std::vector<store::Event>& events, const std::vector<Tid>& threads) {
  size_t leading = 0;
  while (leading < events.size() && events[leading].kind == store::EventKind::Signal) leading++;
  std::vector<size_t> out;
  for (Tid t : threads) {
    for (size_t i = 0; i < events.size(); i++) {
      const store::Event& ev = events[i];
      if (ev.tid != t || ev.kind == store::EventKind::ThreadSwitch) continue;
      if (ev.kind != store::EventKind::Signal || i < leading || ev.siginfo.size() < sizeof(siginfo_t)) break;
      siginfo_t si;
      std::memcpy(&si, ev.siginfo.data(), sizeof si);
      if (process::classify_signal(si) == process::SignalTiming::Asynchronous) out.push_back(i);
      break;
    }
  }
  return out;
}

}  // namespace slsdbg::replay
