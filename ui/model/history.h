// The whole recording at a glance, without Qt: one row per checkpoint (time,
// stop time, dirty pages) and one mark per event, for the timeline.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/result.h"
#include "store/recording.h"

namespace slsdbg::ui {

struct EventMark {
  uint64_t segment = 0;          // the checkpoint the event follows
  store::EventKind kind = store::EventKind::Syscall;
  std::string label;             // "write", "SIGUSR1", "exit 0"
};

struct History {
  std::string dir;
  std::unique_ptr<store::RecordingReader> reader;
  std::vector<store::CheckpointInfo> checkpoints;
  std::vector<EventMark> marks;                            // in segment order
  std::vector<std::pair<std::string, std::string>> bookmarks;  // name, moment
  uint64_t max_dirty = 1;
  uint64_t end_ns = 1;           // time of the last checkpoint (at least 1)
};

// Opens REC and summarizes it. Errors name the recording and the problem.
Result<History> open_history(const std::string& dir);

// The checkpoint a bookmark's moment ("K:..." or "K") points at, if any.
std::optional<uint64_t> moment_checkpoint(const std::string& moment);

std::string event_label(const store::Event& e);

}  // namespace slsdbg::ui
