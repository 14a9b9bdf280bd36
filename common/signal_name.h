// The one way slsdbg names a signal in messages: "SIGSEGV", or "signal 42"
// for a number without an abbreviation (real-time signals, nonsense).
#pragma once

#include <string>

namespace slsdbg {

std::string signal_name(int signo);

}  // namespace slsdbg
