// Descriptor-creating calls whose only output is the new number: replay
// emulates them and puts a placeholder at that number
// (engine/replay/fd_placeholders.h).
#include <sys/syscall.h>

#include "process/syscalls/model.h"

namespace slsdbg::process {

void register_descriptor_models(std::vector<ModelEntry>& out) {
  out.insert(out.end(), {
      {SYS_eventfd, {"eventfd", no_outputs}},
      {SYS_signalfd, {"signalfd", no_outputs}},
      {SYS_inotify_init, {"inotify_init", no_outputs}},
      {SYS_inotify_init1, {"inotify_init1", no_outputs}},
      {SYS_inotify_add_watch, {"inotify_add_watch", no_outputs}},
      {SYS_inotify_rm_watch, {"inotify_rm_watch", no_outputs}},
      {SYS_pidfd_open, {"pidfd_open", no_outputs}},
  });
}

}  // namespace slsdbg::process
