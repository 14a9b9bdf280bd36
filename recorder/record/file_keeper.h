// The capture's keep_file callback for one recording: keeps each privately
// mapped file once in REC/files (store/kept_files.h). SLSDBG_KEEP_FILES=off
// turns it off, so every page of a new file mapping is copied as before
// (for comparisons and doubters). Each kept file is a hard link to the
// per-user cache's copy where it can be (store/kept_file_cache.h;
// SLSDBG_CACHE_DIR=off: a copy of its own per recording).
#pragma once

#include <functional>
#include <string>

#include "store/process_state.h"

namespace slsdbg::recorder {

// `pool_dir`: where copies shared by several recordings are made once (see
// store::keep_mapped_file); "" for a recording of its own.
std::function<bool(const store::Mapping&)> file_keeper(const std::string& recording_dir, const std::string& pool_dir = "");

}  // namespace slsdbg::recorder
