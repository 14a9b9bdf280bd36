// Choosing the checkpoint a dump or backtrace is about: by id (--at K), by
// time since the recording started (--time SECONDS: the last checkpoint at or
// before it), or the last one (--last). Checkpoint ids need not start at 0
// (retention drops old ones), so ids are looked up, not indexed.
#pragma once

#include <cstdint>
#include <vector>

#include "common/result.h"
#include "store/recording.h"

namespace slsdbg::dump {

enum class PickKind { At, Time, Last };

struct CheckpointPick {
  PickKind kind = PickKind::Last;
  uint64_t at = 0;         // PickKind::At
  double seconds = 0;      // PickKind::Time
};

Result<store::CheckpointInfo> pick_checkpoint(const std::vector<store::CheckpointInfo>& checkpoints,
                                              const CheckpointPick& pick);

}  // namespace slsdbg::dump
