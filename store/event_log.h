// Per-segment event logs events/NNNNNN.log (docs/formats/event-log.md):
//
//   [header 32 B][record 0][record 1]...[record n-1][index: n x u64 offset][trailer 40 B]
//   record = u32 payload length, u32 checksum (xxh3-64 low bits, seeded with
//            the record's index), payload (event_codec.h)
//
// Records are streamed to the file while the segment runs; seal() appends the
// index and trailer and makes the file durable. A log without a trailer (the
// writer died) is read by scanning records until the first invalid one.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/fd.h"
#include "common/result.h"
#include "store/event.h"

namespace slsdbg::store {

class EventLogWriter {
 public:
  EventLogWriter(std::string path, uint64_t segment) : path_(std::move(path)), segment_(segment) {}

  Status append(const Event& event);
  // Writes the index and trailer and, with `sync`, fdatasyncs. Creates the
  // file even when the segment has no events. The caller fsyncs the directory.
  Status seal(bool sync = true);
  uint64_t count() const { return offsets_.size(); }
  uint64_t bytes() const { return file_offset_ + buffer_.size(); }

 private:
  Status open_if_needed();
  Status flush_buffer();

  std::string path_;
  uint64_t segment_;
  UniqueFd fd_;
  std::vector<uint8_t> buffer_;   // not yet written, starts at file_offset_
  uint64_t file_offset_ = 0;
  std::vector<uint64_t> offsets_;
};

enum class LogState { Sealed, Unsealed };
// Torn: the log of a segment without a catalog row (live or crashed writer);
// a missing or partial header then means "no events yet", not corruption.
enum class LogExpect { Complete, MaybeTorn };

class EventLogReader {
 public:
  static Result<EventLogReader> open(const std::string& path, uint64_t segment, LogExpect expect = LogExpect::Complete);

  LogState state() const { return state_; }
  uint64_t count() const { return offsets_.size(); }
  Result<Event> event(uint64_t index) const;
  Result<std::vector<Event>> all() const;

 private:
  std::string path_;
  std::vector<uint8_t> data_;  // whole file
  std::vector<uint64_t> offsets_;
  LogState state_ = LogState::Unsealed;
};

}  // namespace slsdbg::store
