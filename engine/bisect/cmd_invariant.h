// --cmd: a shell command judging a core file. It runs as `/bin/sh -c CMD`
// with SLSDBG_CORE (the core of the probed point), SLSDBG_EXE (the program)
// and SLSDBG_WHERE ("checkpoint 12", a moment, or during refinement a
// checkpoint with some words patched, cmd_discover.h) in its environment, stdin
// from /dev/null, stdout and stderr captured (the last line becomes the
// probe's detail). Exit 0 = good, 1..124 = bad; 125 ("cannot tell"), 126/127
// (not runnable) and death by a signal stop the bisect with an error.
#pragma once

#include <string>

#include "engine/bisect/invariant.h"
#include "engine/bisect/scratch_dir.h"

namespace slsdbg::bisect {

class CmdInvariant final : public Invariant {
 public:
  CmdInvariant(std::string exe, std::string command, const ScratchDir& scratch)
      : exe_(std::move(exe)), command_(std::move(command)), scratch_(scratch) {}
  std::string describe() const override { return "--cmd '" + command_ + "'"; }
  Result<Evaluation> evaluate(const StateView& at) override;
  // What a command reads cannot be observed; refinement learns it by asking
  // the command about patched cores instead (cmd_discover.h).
  WatchSet watch_set(const StateView&) override {
    return {{}, "what a --cmd command reads cannot be observed"};
  }

 private:
  std::string exe_, command_;
  const ScratchDir& scratch_;
};

}  // namespace slsdbg::bisect
