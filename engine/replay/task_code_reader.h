// A CodeReader (code_function.h) over a stopped tracee's memory as it is,
// int3s and stubs included (a session that must hide its own traps wraps
// its observer's hide_traps instead).
#pragma once

#include "engine/replay/code_function.h"
#include "process/task.h"

namespace slsdbg::replay {

inline CodeReader task_code_reader(process::Task& task) {
  return [&task](uint64_t addr, std::span<uint8_t> out) { return task.read_memory(RemoteAddr(addr), out).ok(); };
}

}  // namespace slsdbg::replay
