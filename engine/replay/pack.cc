#include "engine/replay/pack.h"

#include <unistd.h>

#include <filesystem>
#include <system_error>

#include "engine/replay/binary_check.h"
#include "process/build_id.h"

namespace slsdbg::replay {

namespace {

// The recording names files by the paths the kernel shows (/usr/lib/...),
// the program's link map by the paths the loader searched (/lib/..., on a
// merged-/usr system a symlink). GDB looks both up under the sysroot, so the
// pack repeats this machine's top-level symlinks ("lib" -> "usr/lib") whose
// target it holds.
Status mirror_root_links(const std::string& root) {
  namespace fs = std::filesystem;
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator("/", ec)) {
    if (!e.is_symlink(ec)) continue;
    const fs::path target = fs::read_symlink(e.path(), ec);
    if (ec || target.is_absolute()) continue;
    const fs::path link = fs::path(root) / e.path().filename();
    if (!fs::is_directory(fs::path(root) / target, ec) || fs::symlink_status(link, ec).type() != fs::file_type::not_found)
      continue;
    fs::create_directory_symlink(target, link, ec);
    if (ec) return Error::msg("cannot create " + link.string() + ": " + ec.message());
  }
  return ok_status();
}

}  // namespace

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
  TRY(mirror_root_links(pack_root(recording_dir)));
  return summary;
}

}  // namespace slsdbg::replay
