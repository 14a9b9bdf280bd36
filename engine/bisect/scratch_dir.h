// A private temporary directory (mode 0700, under $TMPDIR or /tmp) for the
// cores bisect writes; removed with everything in it when destroyed. Cores
// hold process memory, so they never go anywhere world-readable.
#pragma once

#include <string>

#include "common/result.h"
#include "engine/bisect/state_view.h"

namespace slsdbg::bisect {

class ScratchDir {
 public:
  static Result<ScratchDir> create();
  ScratchDir(ScratchDir&& other) noexcept;
  ScratchDir& operator=(ScratchDir&&) = delete;
  ~ScratchDir();
  const std::string& path() const { return path_; }

 private:
  explicit ScratchDir(std::string path) : path_(std::move(path)) {}
  std::string path_;
};

// Writes the core of `at` as DIR/NAME (0600) and returns its path.
Result<std::string> write_core_of(const StateView& at, const ScratchDir& dir, const std::string& name);

}  // namespace slsdbg::bisect
