// Adapter: the memory image of checkpoint k of a recording as a MemorySource.
#pragma once

#include "common/ids.h"
#include "engine/dump/memory_source.h"
#include "store/recording.h"

namespace slsdbg::dump {

class RecordingMemory final : public MemorySource {
 public:
  RecordingMemory(const store::RecordingReader& reader, CheckpointId k) : reader_(reader), k_(k) {}
  Status read(uint64_t addr, std::span<uint8_t> out) override { return reader_.read_memory(k_, addr, out); }
  // The store's reader does a pread and a checksum per page behind
  // mutex-guarded caches; two threads nearly halve the time of a dump.
  unsigned concurrent_reads() const override { return 2; }

 private:
  const store::RecordingReader& reader_;
  CheckpointId k_;
};

}  // namespace slsdbg::dump
