// vFile for GDB over a replay: /proc/PID/maps (and /proc/PID/task/TID/maps)
// is the replayed moment's memory map in the kernel's format, so `info proc
// mappings` and GDB's own reads after an exec see the moment, not this
// machine; other /proc files do not exist; any other path is read from this
// machine (GDB fetches the program and libraries that way).
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "store/process_state.h"

namespace slsdbg::gdbserver {

using MappingsNow = std::function<Result<std::vector<store::Mapping>>()>;

Result<std::string> read_replay_file(std::string_view path, const MappingsNow& mappings_now);

}  // namespace slsdbg::gdbserver
