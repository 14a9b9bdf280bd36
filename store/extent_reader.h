// Reads blocks back from extent files through read-only shared mappings (the
// page cache, no copy, no syscall per block). Blocks are only handed out after
// a bounds check against the file size, so a bad reference is an error, never
// SIGBUS. Checksums are checked by the caller (page_tree.h), which knows what
// the block should be. Thread-safe; files are mapped lazily.
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
  ~ExtentReader();
  ExtentReader(const ExtentReader&) = delete;
  ExtentReader& operator=(const ExtentReader&) = delete;

  // The kBlockSize bytes of block REF (valid while this reader lives).
  Result<const uint8_t*> block(BlockRef ref) const;
  // Ensures pages/000000.ext .. pages/(count-1).ext exist with valid headers.
  Status check_extents(uint32_t count) const;

 private:
  struct Mapped {
    UniqueFd fd;
    const uint8_t* base = nullptr;  // kBlocksPerExtent * kBlockSize reserved
    uint64_t size = 0;              // file size when last checked
    uint32_t capacity = 0;          // blocks, from the header
  };
  Result<Mapped*> mapped(uint32_t extent) const;

  std::string dir_;
  mutable std::mutex mu_;
  mutable std::vector<Mapped> files_;
};

// Data blocks: low 64 bits of xxh3-128 (the dedup hash). Tree nodes: xxh3-64
// seeded with kNodeSeed + level.
uint64_t data_checksum(const uint8_t* block);
uint64_t node_checksum(const uint8_t* block, int level);

std::string describe_ref(BlockRef ref);  // "pages/000000.ext block 17"

}  // namespace slsdbg::store
