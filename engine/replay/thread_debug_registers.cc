#include "engine/replay/thread_debug_registers.h"

#include <map>
#include <mutex>

namespace slsdbg::replay {

DebugRegisters& thread_debug_registers(pid_t tid) {
  static std::mutex mu;
  static std::map<pid_t, DebugRegisters> tables;  // node-based: references stay valid
  std::lock_guard<std::mutex> lock(mu);
  return tables[tid];
}

}  // namespace slsdbg::replay
