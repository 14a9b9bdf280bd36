// Where capture's helper threads run: off the CPU the recorder and tracee
// are pinned to (a thread inherits that pin), so that they work beside the
// tracee instead of taking turns with it.
#pragma once

#include <thread>

namespace slsdbg::recorder {

// Every online CPU but the caller's; left as is on a single-CPU machine.
void move_off_current_cpu(std::thread& t);

}  // namespace slsdbg::recorder
