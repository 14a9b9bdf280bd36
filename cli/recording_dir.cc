#include "cli/recording_dir.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>

namespace slsdbg::recorder {

namespace fs = std::filesystem;

std::string recordings_root() {
  if (const char* d = std::getenv("SLSDBG_DIR"); d && *d) return d;
  const char* home = std::getenv("HOME");
  return std::string(home && *home ? home : "/tmp") + "/.local/share/slsdbg";
}

Result<std::string> next_recording_dir(const std::string& program) {
  const std::string root = recordings_root();
  std::error_code ec;
  fs::create_directories(root, ec);
  if (ec) return Error::msg("cannot create " + root + ": " + ec.message());
  chmod(root.c_str(), 0700);
  std::string base = fs::path(program).filename().string();
  if (base.empty()) base = "rec";
  for (int n = 1; n < 1'000'000; n++) {
    std::string dir = root + "/" + base + "-" + std::to_string(n);
    if (!fs::exists(fs::symlink_status(dir))) return dir;
  }
  return Error::msg("no free recording name under " + root);
}

Status update_latest_link(const std::string& dir) {
  const std::string link = recordings_root() + "/latest";
  const std::string tmp = link + ".tmp" + std::to_string(getpid());
  std::error_code ec;
  const std::string target = fs::absolute(dir, ec).string();
  unlink(tmp.c_str());
  if (symlink(target.c_str(), tmp.c_str()) != 0) return Error::from_errno("symlink " + tmp);
  if (rename(tmp.c_str(), link.c_str()) != 0) return Error::from_errno("rename " + link);
  return ok_status();
}

namespace {
// A directory: true; absent: false; unreachable (EACCES): "permission denied"
// naming the path, rather than "no such recording".
Result<bool> is_dir(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) == 0) return S_ISDIR(st.st_mode);
  if (errno == EACCES) return Error{"cannot read " + path + ": permission denied", EACCES};
  return false;
}
}  // namespace

Result<std::string> resolve_recording(const std::string& name_or_path) {
  if (TRY(is_dir(name_or_path))) return name_or_path;
  if (name_or_path.find('/') == std::string::npos) {
    std::string under = recordings_root() + "/" + name_or_path;
    if (TRY(is_dir(under))) return under;
  }
  // A path (it has a '/') names a directory; a bare word may also be a name.
  if (name_or_path.find('/') != std::string::npos)
    return Error::not_found("no such recording directory: " + name_or_path);
  return Error::not_found("no such recording: '" + name_or_path + "' is neither a directory nor a recording under " +
                    recordings_root());
}

}  // namespace slsdbg::recorder
