// The one line `slsdbg record` (and info) print about a crash checkpoint:
// which signal killed the program and where, symbolized like a backtrace's
// first frame.
#pragma once

#include <optional>
#include <string>

#include "common/result.h"
#include "store/recording.h"

namespace slsdbg::dump {

// "SIGSEGV (SEGV_MAPERR, address 0x8) at 0x401136 in crash_me+0x16 at /src/a.c:12 (/bin/a)".
// nullopt when the recording's last checkpoint is not a crash.
Result<std::optional<std::string>> describe_crash(const store::RecordingReader& reader);

}  // namespace slsdbg::dump
