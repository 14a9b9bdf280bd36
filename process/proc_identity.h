// What /proc says about who a process is and where: auxv, exe, cwd, cmdline,
// and the start of its brk heap.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "common/result.h"

namespace slsdbg::process {

Result<std::vector<uint8_t>> read_auxv(pid_t pid);
Result<std::string> read_exe(pid_t pid);
Result<std::string> read_cwd(pid_t pid);
Result<std::vector<std::string>> read_cmdline(pid_t pid);
// start_brk, field 47 of /proc/PID/stat.
Result<uint64_t> read_brk_start(pid_t pid);

}  // namespace slsdbg::process
