// One public move's interrupt cut (process/wait_cut.h), for the Timeline and
// the ThreadedTimeline alike: watches the debugger's descriptor while the
// move runs, and wraps the move's own interrupt poll (which reads the
// debugger at events and checkpoints) so that an interrupt it reads first
// cuts the long waits that follow too. Restores the poll when it ends.
#pragma once

#include <functional>
#include <utility>

#include "process/wait_cut.h"

namespace slsdbg::replay {

class MoveCut {
 public:
  MoveCut(std::function<bool()>& poll, const std::function<int()>& wake_fd)
      : cut_(wake_fd ? wake_fd() : -1), poll_(poll), own_(poll) {
    poll_ = [this] {
      const bool wanted = own_ && own_();
      if (wanted) cut_.request();
      return wanted;
    };
  }
  ~MoveCut() { poll_ = std::move(own_); }
  MoveCut(const MoveCut&) = delete;
  MoveCut& operator=(const MoveCut&) = delete;

  // Stops the watcher (before the landing runs the program again); then
  // fired() says whether a wait was cut (the process is in mid-run).
  bool disarm_and_check() {
    cut_.disarm();
    return cut_.fired();
  }
  bool fired() const { return cut_.fired(); }

 private:
  process::WaitCut cut_;
  std::function<bool()>& poll_;
  std::function<bool()> own_;
};

}  // namespace slsdbg::replay
