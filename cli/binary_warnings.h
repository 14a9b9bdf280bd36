// Commands that read a recording's binaries (backtrace, dump) say by name
// which ones changed or went missing since recording, as replay does.
#pragma once

#include <string>

#include "store/recording.h"

namespace slsdbg::cli {

// Prints "slsdbg COMMAND: warning: ..." per changed or missing file to stderr;
// true when the recording's pack holds every file it mapped.
bool warn_about_binaries(const store::RecordingReader& reader, const std::string& command);

}  // namespace slsdbg::cli
