// Extent reader (see extent_reader.h).
#include "store/extent_reader.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <xxhash.h>

#include <cstdio>

#include "store/extent_header.h"
#include "store/fs_util.h"

namespace slsdbg::store {

namespace {
constexpr uint64_t kExtentBytes = kBlocksPerExtent * kBlockSize;
}

uint64_t data_checksum(const uint8_t* block) { return XXH3_128bits(block, kBlockSize).low64; }
uint64_t node_checksum(const uint8_t* block, int level) { return XXH3_64bits_withSeed(block, kBlockSize, kNodeSeed + uint64_t(level)); }

std::string describe_ref(BlockRef ref) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "pages/%06u.ext block %u", ref_extent(ref), ref_slot(ref));
  return buf;
}

ExtentReader::~ExtentReader() {
  for (auto& f : files_)
    if (f.base) ::munmap(const_cast<uint8_t*>(f.base), kExtentBytes);
}

Result<ExtentReader::Mapped*> ExtentReader::mapped(uint32_t extent) const {
  // Caller holds mu_.
  if (extent < files_.size() && files_[extent].base) return &files_[extent];
  std::string path = extent_path(dir_, extent);
  if (!path_exists(path)) return Error::msg("missing extent file " + path);
  UniqueFd fd = TRY(open_file(path, O_RDONLY));
  uint8_t hdr[kBlockSize];
  TRY(read_exact(fd.get(), hdr, kBlockSize, 0, path));
  uint32_t capacity = TRY(check_extent_header(hdr, extent, path));
  struct stat st;
  if (::fstat(fd.get(), &st) != 0) return Error::from_errno("fstat " + path);
  // Reserve the whole extent's address range once; the file grows into it.
  void* p = ::mmap(nullptr, kExtentBytes, PROT_READ, MAP_SHARED, fd.get(), 0);
  if (p == MAP_FAILED) return Error::from_errno("mmap " + path);
  if (files_.size() <= extent) files_.resize(extent + 1);
  Mapped& m = files_[extent];
  m.fd = std::move(fd);
  m.base = static_cast<const uint8_t*>(p);
  m.size = uint64_t(st.st_size);
  m.capacity = capacity;
  return &m;
}

Result<const uint8_t*> ExtentReader::block(BlockRef ref) const {
  if (ref_slot(ref) == 0 || ref_slot(ref) >= kBlocksPerExtent) return Error::msg("invalid block reference " + describe_ref(ref));
  std::lock_guard<std::mutex> lock(mu_);
  Mapped* m = TRY(mapped(ref_extent(ref)));
  if (ref_slot(ref) >= m->capacity) return Error::msg("invalid block reference " + describe_ref(ref) + " (beyond the extent's capacity)");
  uint64_t end = (uint64_t(ref_slot(ref)) + 1) * kBlockSize;
  if (end > m->size) {  // the writer may have grown the file since
    struct stat st;
    if (::fstat(m->fd.get(), &st) != 0) return Error::from_errno("fstat " + extent_path(dir_, ref_extent(ref)));
    m->size = uint64_t(st.st_size);
    if (end > m->size) return Error::msg(describe_ref(ref) + " lies beyond the end of its extent file");
  }
  return m->base + uint64_t(ref_slot(ref)) * kBlockSize;
}

Status ExtentReader::check_extents(uint32_t count) const {
  std::lock_guard<std::mutex> lock(mu_);
  for (uint32_t e = 0; e < count; e++) TRY(mapped(e));
  return ok_status();
}

}  // namespace slsdbg::store
