// Block 0 of every extent file (docs/formats/extents.md):
//   0  char[8] magic "SLSEXT01"     16 u32 block size (4096)
//   8  u32 format version (1)       20 u32 blocks per extent (16..262144)
//   12 u32 extent number            24 u64 xxh3-64 of bytes 0..23
// The rest of the block is zero.
#pragma once

#include <xxhash.h>

#include <cstdint>
#include <cstring>
#include <string>

#include "common/result.h"
#include "store/format.h"

namespace slsdbg::store {

struct ExtentHeader {
  char magic[8];
  uint32_t version;
  uint32_t extent;
  uint32_t block_size;
  uint32_t blocks_per_extent;
  uint64_t checksum;
};
static_assert(sizeof(ExtentHeader) == 32);

inline void fill_extent_header(uint8_t* block, uint32_t extent, uint32_t blocks_per_extent) {
  std::memset(block, 0, kBlockSize);
  ExtentHeader h{};
  std::memcpy(h.magic, kExtentMagic, 8);
  h.version = kExtentVersion;
  h.extent = extent;
  h.block_size = uint32_t(kBlockSize);
  h.blocks_per_extent = blocks_per_extent;
  h.checksum = XXH3_64bits(&h, 24);
  std::memcpy(block, &h, sizeof h);
}

// Returns the extent's capacity in blocks.
inline Result<uint32_t> check_extent_header(const uint8_t* block, uint32_t extent, const std::string& path) {
  ExtentHeader h;
  std::memcpy(&h, block, sizeof h);
  if (std::memcmp(h.magic, kExtentMagic, 8) != 0 || h.checksum != XXH3_64bits(&h, 24))
    return Error::msg(path + ": not an extent file (bad magic or header checksum)");
  if (h.version != kExtentVersion)
    return Error::msg(path + ": extent format version " + std::to_string(h.version) + " is not supported (this build reads " +
                      std::to_string(kExtentVersion) + ")");
  if (h.extent != extent || h.block_size != kBlockSize || h.blocks_per_extent < kMinBlocksPerExtent || h.blocks_per_extent > kBlocksPerExtent)
    return Error::msg(path + ": extent header does not match its file name or geometry");
  return h.blocks_per_extent;
}

}  // namespace slsdbg::store
