// The recorder's seccomp-bpf filter: every syscall of the tracee stops in the
// recorder (SECCOMP_RET_TRACE) except those issued from the injection page,
// which are the recorder's own injected syscalls (SECCOMP_RET_ALLOW), and,
// when asked, the syscall buffer's.
#pragma once

#include "common/result.h"

namespace slsdbg::process {

// Installs the filter on the calling thread (in the child, before execve).
// Sets PR_SET_NO_NEW_PRIVS first. Async-signal-safe apart from errno.
// `syscall_buffer` (record --syscall-buffer) also allows the syscall
// buffer stub's fast `syscall` (syscallbuf_stub.h); replay never does.
Status install_record_filter(bool syscall_buffer = false);

}  // namespace slsdbg::process
