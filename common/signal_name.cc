#include "common/signal_name.h"

#include <string.h>

namespace slsdbg {

std::string signal_name(int signo) {
  const char* abbrev = signo > 0 ? sigabbrev_np(signo) : nullptr;
  return abbrev ? std::string("SIG") + abbrev : "signal " + std::to_string(signo);
}

}  // namespace slsdbg
