// --at K | --time SECONDS | --last: which checkpoint `dump` and `backtrace`
// are about, parsed the same way for both.
#pragma once

#include <optional>

#include "cli/options.h"
#include "engine/dump/checkpoint_pick.h"

namespace slsdbg::cli {

class CheckpointOptions {
 public:
  explicit CheckpointOptions(Options& opts)
      : at_(opts.number("--at", pick_.at, "a checkpoint id")),
        time_(opts.seconds("--time", pick_.seconds)),
        last_(opts.flag("--last", last_given_)) {}

  // The pick when exactly one of the three was given.
  std::optional<dump::CheckpointPick> pick() const {
    if (at_->count() + time_->count() + last_->count() != 1) return std::nullopt;
    dump::CheckpointPick p = pick_;
    p.kind = at_->count() ? dump::PickKind::At : time_->count() ? dump::PickKind::Time : dump::PickKind::Last;
    return p;
  }
  static constexpr const char* kProblem = "give exactly one of --at K, --time SECONDS, --last";

 private:
  dump::CheckpointPick pick_;
  bool last_given_ = false;
  CLI::Option* at_;
  CLI::Option* time_;
  CLI::Option* last_;
};

}  // namespace slsdbg::cli
