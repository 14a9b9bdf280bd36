// Where `slsdbg pack` keeps its copies: REC/pack/<original path>. Everything
// that reads a file the recording mapped (restore, replay, backtrace, dump,
// GDB's sysroot) asks here first, so a packed recording keeps working when it
// is moved and the originals are renamed, rebuilt or deleted.
#pragma once

#include <string>

namespace slsdbg::store {

class RecordingReader;

// The directory `reader` was opened from (recording_reader.cc).
std::string dir_of(const RecordingReader& reader);

// REC/pack.
std::string pack_root(const std::string& recording_dir);

// REC/pack/<path> when the pack holds a readable copy of `path` (an absolute
// path the recording mapped); else `path` itself. An empty recording_dir
// (a state that comes from no recording) gives `path`.
std::string packed_or_original(const std::string& recording_dir, const std::string& path);

}  // namespace slsdbg::store
