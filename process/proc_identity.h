// What /proc says about who a process is and where: auxv, exe, cwd, cmdline,
// and the start of its brk heap.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"

namespace slsdbg::process {

Result<std::vector<uint8_t>> read_auxv(pid_t pid);
Result<std::string> read_exe(pid_t pid);
Result<std::string> read_cwd(pid_t pid);
Result<std::vector<std::string>> read_cmdline(pid_t pid);
// start_brk, field 47 of /proc/PID/stat.
Result<uint64_t> read_brk_start(pid_t pid);
// The text after "NAME:" on its line of /proc/PID/status (leading blanks
// kept: atoi and stoull skip them); none when the file or line is missing.
std::optional<std::string> read_status_field(pid_t pid, std::string_view name);
// Its PPid field; -1 when the process is gone.
pid_t read_parent_pid(pid_t pid);

}  // namespace slsdbg::process
