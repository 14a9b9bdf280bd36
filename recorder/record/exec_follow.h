// Following execve. At the exec event stop the old address space is gone,
// and with it everything the recorder had put there (injection page, patched
// vDSO, userfaultfd registrations, fast-write duplicates of cloexec fds):
// the new image is armed as a spawned program is, and the recording goes on
// with a full checkpoint of it ("exec"), which replay reaches by restore.
#pragma once

#include <memory>
#include <string>

#include "common/result.h"
#include "process/task.h"
#include "process/vdso_patch.h"
#include "recorder/capture/checkpoint_capture.h"

namespace slsdbg::recorder {

struct ExecImage {
  std::string path;      // /proc/PID/exe after the exec
  std::string build_id;  // hex GNU build-id of that file, "" when it has none
};

// Re-arms the tracee stopped at its PTRACE_EVENT_EXEC: a fresh injection
// page and vDSO patch, and a new capture whose first checkpoint holds every
// populated page of the new image.
Result<std::unique_ptr<CheckpointCapture>> arm_new_image(process::Task& task, TrackerChoice tracker,
                                                         const CaptureOptions& options, process::VdsoRoute vdso);

// Path and build-id of the program `pid` runs now.
ExecImage exec_image(pid_t pid);

}  // namespace slsdbg::recorder
