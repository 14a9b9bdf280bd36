// `slsdbg pack REC`: copies every file the recording mapped (program,
// libraries, loader, mapped data files) into REC/pack/<original path>, so the
// recording replays and debugs with the originals changed, moved or gone
// (rr's pack is the model). Replay then points GDB's sysroot at REC/pack.
#pragma once

#include <cstdint>
#include <string>

#include "common/result.h"
#include "store/recording.h"

namespace slsdbg::replay {

struct PackSummary {
  uint64_t files = 0;       // copied now
  uint64_t already = 0;     // in the pack already, same build-id
  uint64_t bytes = 0;       // copied now
};

// Fails naming the file when one changed since recording (its build-id
// differs) or cannot be read: a pack must hold the originals.
Result<PackSummary> pack_recording(const store::RecordingReader& reader, const std::string& recording_dir);

}  // namespace slsdbg::replay
