#include "recorder/record/capture_activity.h"

#include <sys/syscall.h>

namespace slsdbg::recorder {

bool leaves_capture_state_alone(long nr) {
  switch (nr) {
    case SYS_futex:
#ifdef SYS_futex_waitv
    case SYS_futex_waitv:
#endif
      return true;
    default:
      return false;
  }
}

}  // namespace slsdbg::recorder
