// Creating a recording before everything its catalog holds is known: the
// recorder starts the store's creation (directories, extent file, SQLite
// schema: about a millisecond and a half) on its writer thread before it
// spawns the program, whose pid, memory tracker and CPUID come later.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "common/result.h"
#include "store/recording.h"

namespace slsdbg::store {

// Fills in the meta fields that were not known at the start (pid, tracker,
// cpuid ...), waiting for them if need be; an error abandons the creation.
using MetaCompleter = std::function<Status(RecordingMeta&)>;

// As RecordingWriter::create(dir, known, options), but the meta rows are
// written only once `complete` returned, in the same transaction as the
// schema: a crash meanwhile leaves a catalog without a schema, never one
// with half its meta.
Result<std::unique_ptr<RecordingWriter>> create_awaiting_meta(const std::string& dir, const RecordingMeta& known,
                                                              const WriterOptions& options, const MetaCompleter& complete);

// Removes a recording directory whose program never started (no checkpoint
// was committed): what claim_dir and a creation left in it.
Status discard_unstarted_recording(const std::string& dir);

}  // namespace slsdbg::store
