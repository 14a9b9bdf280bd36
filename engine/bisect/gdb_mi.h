// One long-lived GDB (the real Debian gdb, machine interface) that loads the
// recorded program once and then evaluates expressions over any number of
// core files: a probe costs a `core-file` and an evaluation, not a GDB start.
#pragma once

#include <sys/types.h>

#include <memory>
#include <string>

#include "common/fd.h"
#include "common/result.h"

namespace slsdbg::bisect {

class GdbMi {
 public:
  // Starts `gdb --nx --interpreter=mi2 EXE` with debuginfod off.
  static Result<std::unique_ptr<GdbMi>> start(const std::string& exe);
  ~GdbMi();

  Status load_core(const std::string& core_path);
  // The value GDB prints for EXPR (e.g. "1", "0x4011d6 <main+17>"), or an
  // Error carrying GDB's own message ("No symbol \"x\" in current context.").
  Result<std::string> evaluate(const std::string& expr);

 private:
  GdbMi(pid_t pid, UniqueFd to, UniqueFd from) : pid_(pid), to_(std::move(to)), from_(std::move(from)) {}
  // Sends one MI command; returns the text after "^done" (",value=..." etc.).
  Result<std::string> command(const std::string& mi);
  Result<std::string> read_line();

  pid_t pid_;
  UniqueFd to_, from_;
  std::string pending_;
  unsigned next_token_ = 1;
};

// MI's C-string quoting, both ways (for arguments and for msg="..." / value="...").
std::string mi_quote(const std::string& text);
// The value of `key="..."` in an MI result record's payload; "" when absent.
std::string mi_field(const std::string& payload, const std::string& key);

}  // namespace slsdbg::bisect
