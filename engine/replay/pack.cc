#include "engine/replay/pack.h"

#include <unistd.h>

#include <filesystem>
#include <system_error>

#include "engine/replay/binary_check.h"
#include "recorder/process/build_id.h"

namespace slsdbg::replay {

Result<PackSummary> pack_recording(const store::RecordingReader& reader, const std::string& recording_dir) {
  namespace fs = std::filesystem;
  PackSummary summary;
  for (const MappedFile& f : mapped_files(reader)) {
    const std::string copy = pack_root(recording_dir) + f.path;
    if (::access(copy.c_str(), R_OK) == 0 && process::read_build_id(copy) == f.build_id && !f.build_id.empty()) {
      summary.already++;
      continue;
    }
    if (::access(f.path.c_str(), R_OK) != 0)
      return Error::from_errno("cannot pack " + f.path + " (mapped by the recording)");
    if (process::read_build_id(f.path) != f.build_id)
      return Error::msg("cannot pack " + f.path + ": it changed since recording (its build-id differs)");
    std::error_code ec;
    fs::create_directories(fs::path(copy).parent_path(), ec);
    if (ec) return Error::msg("cannot create " + fs::path(copy).parent_path().string() + ": " + ec.message());
    fs::copy_file(f.path, copy, fs::copy_options::overwrite_existing, ec);
    if (ec) return Error::msg("cannot copy " + f.path + " to " + copy + ": " + ec.message());
    summary.files++;
    summary.bytes += fs::file_size(copy, ec);
  }
  return summary;
}

}  // namespace slsdbg::replay
