// qXfer objects: constant ones, and ones read from the recording at the
// current checkpoint (auxv, exec-file: an execve changes them).
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

// An object read from the recording when GDB asks (auxv and exec-file: the
// checkpoint the session is in, which changes at an execve).
class ComputedXfer final : public XferSource {
 public:
  explicit ComputedXfer(std::function<Result<std::string>()> read) : read_(std::move(read)) {}
  Result<std::string> read_object(std::string_view) override { return read_(); }

 private:
  std::function<Result<std::string>()> read_;
};

}  // namespace slsdbg::gdbserver
