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

class RecordingReader;
class RecordingWriter;

// Sets KEY to VALUE (replacing it); the writer must not be finished. Durable
// with its next checkpoint or finish().
Status put_summary(RecordingWriter& writer, const std::string& key, uint64_t value);

// Every KEY written, with its value.
Result<std::map<std::string, uint64_t>> read_summary(const RecordingReader& reader);

}  // namespace slsdbg::store
