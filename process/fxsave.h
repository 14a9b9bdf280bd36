// The FXSAVE image (PTRACE_GETFPREGS) of a thread, from its XSAVE area
// (NT_X86_XSTATE): the XSAVE area starts with the same 512-byte legacy
// region, and both regsets fill components in their init state with init
// values. Only bytes 464..511 differ: the XSAVE regset puts its software
// bytes there (magic, size, features), GETFPREGS zeroes them. Deriving it
// saves one ptrace call per thread per checkpoint.
#pragma once

#include <sys/user.h>

#include <cstdint>
#include <cstring>
#include <span>

#include "common/result.h"

namespace slsdbg::process {

inline constexpr size_t kFxsaveHardwareBytes = 464;

inline Result<user_fpregs_struct> fpregs_from_xsave(std::span<const uint8_t> xsave) {
  static_assert(sizeof(user_fpregs_struct) == 512);
  if (xsave.size() < sizeof(user_fpregs_struct)) return Error::msg("XSAVE area shorter than its legacy region");
  user_fpregs_struct f{};
  std::memcpy(&f, xsave.data(), kFxsaveHardwareBytes);
  return f;
}

}  // namespace slsdbg::process
