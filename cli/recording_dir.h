// Where recordings live: $SLSDBG_DIR, else ~/.local/share/slsdbg. A new
// recording of PROG is PROG-N (the next free N) and `latest` points at it.
#pragma once

#include <string>

#include "common/result.h"

namespace slsdbg::recorder {

std::string recordings_root();

// Creates the root (0700) if needed and returns a fresh PROG-N path in it
// (not created: the store creates it).
Result<std::string> next_recording_dir(const std::string& program);

// Points ROOT/latest at `dir` (best effort for -o paths outside the root).
Status update_latest_link(const std::string& dir);

// A path, or a name under the root ("latest", "sort-3").
Result<std::string> resolve_recording(const std::string& name_or_path);

}  // namespace slsdbg::recorder
