// qXfer objects that do not change over a replay: auxv (as the kernel gave it
// to the recorded process) and exec-file (its /proc/PID/exe at recording).
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "gdbserver/protocol/target.h"

namespace slsdbg::gdbserver {

class ConstantXfer final : public XferSource {
 public:
  explicit ConstantXfer(std::string bytes) : bytes_(std::move(bytes)) {}
  Result<std::string> read_object(std::string_view) override { return bytes_; }

 private:
  std::string bytes_;
};

// An object computed at each read (it depends on the current moment).
class ComputedXfer final : public XferSource {
 public:
  explicit ComputedXfer(std::function<Result<std::string>()> fn) : fn_(std::move(fn)) {}
  Result<std::string> read_object(std::string_view) override { return fn_(); }

 private:
  std::function<Result<std::string>()> fn_;
};

}  // namespace slsdbg::gdbserver
