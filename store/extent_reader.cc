// Extent reader (see extent_reader.h).
#include "store/extent_reader.h"

#include <fcntl.h>
#include <xxhash.h>

#include <cstdio>

#include "store/extent_header.h"
#include "store/fs_util.h"

namespace slsdbg::store {

uint64_t data_checksum(const uint8_t* block) { return XXH3_128bits(block, kBlockSize).low64; }
uint64_t node_checksum(const uint8_t* block, int level) { return XXH3_64bits_withSeed(block, kBlockSize, kNodeSeed + uint64_t(level)); }

std::string describe_ref(BlockRef ref) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "pages/%06u.ext block %u", ref_extent(ref), ref_slot(ref));
  return buf;
}

Result<int> ExtentReader::fd_for(uint32_t extent) const {
  std::lock_guard<std::mutex> lock(mu_);
  if (extent < fds_.size() && fds_[extent].valid()) return fds_[extent].get();
  std::string path = extent_path(dir_, extent);
  if (!path_exists(path)) return Error::msg("missing extent file " + path);
  UniqueFd fd = TRY(open_file(path, O_RDONLY));
  uint8_t hdr[kBlockSize];
  TRY(read_exact(fd.get(), hdr, kBlockSize, 0, path));
  TRY(check_extent_header(hdr, extent, path));
  if (fds_.size() <= extent) fds_.resize(extent + 1);
  fds_[extent] = std::move(fd);
  return fds_[extent].get();
}

Status ExtentReader::read_block(BlockRef ref, uint8_t* out) const {
  if (ref_slot(ref) == 0 || ref_slot(ref) >= kBlocksPerExtent) return Error::msg("invalid block reference " + describe_ref(ref));
  int fd = TRY(fd_for(ref_extent(ref)));
  return read_exact(fd, out, kBlockSize, uint64_t(ref_slot(ref)) * kBlockSize, describe_ref(ref));
}

Status ExtentReader::check_extents(uint32_t count) const {
  for (uint32_t e = 0; e < count; e++) TRY(fd_for(e));
  return ok_status();
}

}  // namespace slsdbg::store
