// dump and backtrace show a thread that stands at the syscall buffer
// stub's trapped `syscall` (a checkpoint taken while a buffered call
// blocked, as grep's read of a pipe) at the glibc site that called the
// stub (process/syscallbuf_site.h): the stub has no symbols or unwind
// info, so its registers gave GDB and the unwinder a one-frame backtrace.
#pragma once

#include "engine/dump/memory_source.h"
#include "store/process_state.h"
#include "store/recording.h"

namespace slsdbg::cli {

// Moves such threads' rip and rsp to their site, when the recording's stub
// is this build's (another version's frame is not known); returns how many.
unsigned show_at_stub_call_sites(store::ProcessState& state, dump::MemorySource& memory,
                                 const store::RecordingReader& reader);

}  // namespace slsdbg::cli
