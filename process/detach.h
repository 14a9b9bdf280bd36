// Letting a traced thread go: after a restore (`slsdbg restore`) the process
// runs on untraced. The caller detaches every thread it attached.
#pragma once

#include "common/ids.h"
#include "common/result.h"

namespace slsdbg::process {

// PTRACE_DETACH of one thread in a ptrace stop; it resumes with no signal.
Status detach_thread(Tid tid);

}  // namespace slsdbg::process
