#include "engine/dump/checkpoint_pick.h"

#include <cstdio>
#include <string>

namespace slsdbg::dump {

namespace {

std::string seconds(uint64_t ns) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f s", static_cast<double>(ns) / 1e9);
  return buf;
}

}  // namespace

Result<store::CheckpointInfo> pick_checkpoint(const std::vector<store::CheckpointInfo>& checkpoints,
                                              const CheckpointPick& pick) {
  if (checkpoints.empty()) return Error::msg("recording has no complete checkpoint");
  const auto& first = checkpoints.front();
  const auto& last = checkpoints.back();
  switch (pick.kind) {
    case PickKind::Last:
      return last;
    case PickKind::At:
      for (const auto& c : checkpoints)
        if (c.id.value == pick.at) return c;
      return Error::msg("checkpoint " + std::to_string(pick.at) + " out of range (recording has checkpoints " +
                        std::to_string(first.id.value) + ".." + std::to_string(last.id.value) + ")");
    case PickKind::Time: {
      if (!(pick.seconds >= 0)) return Error::msg("--time must be a non-negative number of seconds");
      double ns = pick.seconds * 1e9;
      const store::CheckpointInfo* best = nullptr;
      for (const auto& c : checkpoints)
        if (static_cast<double>(c.time_ns) <= ns) best = &c;
      if (!best)
        return Error::msg("no checkpoint at or before " + seconds(static_cast<uint64_t>(ns)) + " (the first is at " +
                          seconds(first.time_ns) + ")");
      return *best;
    }
  }
  return Error::msg("unknown checkpoint choice");
}

}  // namespace slsdbg::dump
