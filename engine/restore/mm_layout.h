// The kernel's per-process layout fields (mm->start_code ... env_end, brk,
// auxv) that /proc/PID/{stat,cmdline,environ,maps} and brk(2) rely on. The
// checkpoint holds brk and auxv; the rest is derived from the recorded
// mappings and from the initial stack (argc, argv, envp sit right below the
// auxiliary vector there). Pure: restore.cc hands it to prctl(PR_SET_MM_MAP).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "store/process_state.h"

namespace slsdbg::restore {

struct MmLayout {
  uint64_t start_code = 0, end_code = 0;
  uint64_t start_data = 0, end_data = 0;
  uint64_t start_brk = 0, brk = 0;
  uint64_t start_stack = 0;
  uint64_t arg_start = 0, arg_end = 0;
  uint64_t env_start = 0, env_end = 0;
  // Set when argv/envp could not be found on the recorded stack: then
  // /proc/PID/cmdline of the restored process is empty.
  std::optional<std::string> caveat;
};

// `stack` holds the recorded contents of the mapping starting at
// `stack_start` (the [stack] mapping), or is empty when there is none.
MmLayout derive_mm_layout(const store::ProcessState& state, uint64_t stack_start, std::span<const uint8_t> stack);

}  // namespace slsdbg::restore
