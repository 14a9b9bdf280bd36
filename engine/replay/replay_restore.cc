#include "engine/replay/replay_restore.h"

#include <sys/prctl.h>
#include <unistd.h>

#include "common/log.h"
#include "engine/replay/replay_helpers.h"
#include "engine/replay/sysbuf_version.h"
#include "process/cpu.h"
#include "process/seccomp_filter.h"
#include "process/vdso_patch.h"

namespace slsdbg::replay {

Result<process::Task> restore_for_replay(const store::RecordingReader& reader, CheckpointId k,
                                         std::vector<restore::RestoredThread>* threads) {
  TRY(check_sysbuf_version(reader));
  restore::RestoreOptions options;
  options.fd_numbers = restore::FdNumbers::Exact;
  const int cpu = replay_cpu(reader);
  options.in_child_before_exec = [cpu]() -> Status {
    // Its own session: the terminal's Ctrl-C/Ctrl-Z/SIGHUP (meant for GDB or
    // the user's shell) never reach a replayed process, whose signals all
    // come from the log.
    if (setsid() < 0) return Error::from_errno("setsid");
    if (cpu >= 0) TRY(process::pin_to_cpu(cpu));
    if (prctl(PR_SET_TSC, PR_TSC_SIGSEGV, 0, 0, 0) != 0) return Error::from_errno("prctl(PR_SET_TSC)");
    return process::install_record_filter();
  };
  process::pin_tracer_to_cpu(cpu);  // this thread traces what it restores
  options.threads = threads;
  restore::RestoreReport report;
  options.report = &report;
  process::Task task = TRY(restore::restore_checkpoint(reader, k, std::move(options)));
  for (const std::string& w : report.warnings)
    SLSDBG_DEBUG("replay", "restoring checkpoint %llu: %s", (unsigned long long)k.value, w.c_str());
  // The recorder made the vDSO's time functions trapped syscalls (through
  // the buffer's stub when it had one); make sure the restored vDSO does the
  // same (patching twice writes the same bytes).
  const process::VdsoRoute route =
      TRY(recorded_with_sysbuf(reader)) ? process::VdsoRoute::ThroughSyscallBuffer : process::VdsoRoute::Syscall;
  const int patched = TRY_CTX(process::patch_vdso_time_functions(task.tgid(), route), "patching the restored vDSO");
  SLSDBG_DEBUG("replay", "checkpoint %llu: %d vDSO entry points patched", (unsigned long long)k.value, patched);
  return task;
}

}  // namespace slsdbg::replay
