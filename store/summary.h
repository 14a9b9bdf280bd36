// Counts about a whole recording that listings read without its event log
// (e.g. how many child processes the recorded program started, for `ls`).
// Kept in catalog.db's meta table as rows "summary.KEY"
// (docs/formats/catalog.md); a recording made before them has none.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "common/result.h"

namespace slsdbg::store {

// The keys the recorder writes (docs/formats/catalog.md), read by `info` and
// `ls`: children the recorded process started, and the adaptive interval's
// bound, longest interval and stretched ticks (recorder/record/interval_policy.h).
inline constexpr const char* kChildrenStartedKey = "children_started";
inline constexpr const char* kMaxIntervalKey = "max_interval_ns";
inline constexpr const char* kLongestIntervalKey = "longest_interval_ns";
inline constexpr const char* kStretchedTicksKey = "stretched_ticks";

class RecordingReader;
class RecordingWriter;

// Sets KEY to VALUE (replacing it); the writer must not be finished. Written,
// and durable, with its next checkpoint or finish(), in that transaction.
Status put_summary(RecordingWriter& writer, const std::string& key, uint64_t value);

// Every KEY written, with its value.
Result<std::map<std::string, uint64_t>> read_summary(const RecordingReader& reader);

}  // namespace slsdbg::store
