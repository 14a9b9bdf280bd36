// Reads blocks back from extent files with pread (page cache), verifying each
// against the checksum its parent holds. Thread-safe; files open lazily.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "common/fd.h"
#include "common/result.h"
#include "store/format.h"

namespace slsdbg::store {

class ExtentReader {
 public:
  explicit ExtentReader(std::string dir) : dir_(std::move(dir)) {}

  // Reads block REF into out (kBlockSize bytes). No checksum check here.
  Status read_block(BlockRef ref, uint8_t* out) const;
  // Ensures pages/000000.ext .. pages/(count-1).ext exist with valid headers.
  Status check_extents(uint32_t count) const;

 private:
  Result<int> fd_for(uint32_t extent) const;

  std::string dir_;
  mutable std::mutex mu_;
  mutable std::vector<UniqueFd> fds_;
};

// Data blocks: low 64 bits of xxh3-128 (the dedup hash). Tree nodes: xxh3-64
// seeded with kNodeSeed + level.
uint64_t data_checksum(const uint8_t* block);
uint64_t node_checksum(const uint8_t* block, int level);

std::string describe_ref(BlockRef ref);  // "pages/000000.ext block 17"

}  // namespace slsdbg::store
