#include "cli/binary_warnings.h"

#include <cstdio>

#include "engine/replay/binary_check.h"

namespace slsdbg::cli {

bool warn_about_binaries(const store::RecordingReader& reader, const std::string& command) {
  bool packed = false;
  for (const std::string& w : replay::check_binaries(reader, store::dir_of(reader), &packed))
    std::fprintf(stderr, "slsdbg %s: warning: %s\n", command.c_str(), w.c_str());
  return packed;
}

}  // namespace slsdbg::cli
