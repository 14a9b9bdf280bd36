#include "store/pack_layout.h"

#include <unistd.h>

namespace slsdbg::store {

std::string pack_root(const std::string& recording_dir) { return recording_dir + "/pack"; }

std::string packed_or_original(const std::string& recording_dir, const std::string& path) {
  if (recording_dir.empty() || path.empty() || path.front() != '/') return path;
  const std::string copy = pack_root(recording_dir) + path;
  return ::access(copy.c_str(), R_OK) == 0 ? copy : path;
}

}  // namespace slsdbg::store
