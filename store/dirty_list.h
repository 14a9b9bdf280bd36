// The dirty set of a checkpoint as stored in checkpoints.dirty_list: sorted,
// unique page addresses as LEB128 varints of (vpn - previous vpn).
#pragma once

#include <cstdint>
#include <vector>

#include "common/ids.h"
#include "common/result.h"
#include "store/byte_codec.h"

namespace slsdbg::store {

inline std::vector<uint8_t> encode_dirty_list(const std::vector<uint64_t>& sorted_vaddrs) {
  ByteWriter w;
  uint64_t prev = 0;
  for (uint64_t a : sorted_vaddrs) {
    uint64_t vpn = a / kPageSize;
    w.varint(vpn - prev);
    prev = vpn;
  }
  return w.take();
}

inline Result<std::vector<uint64_t>> decode_dirty_list(const std::vector<uint8_t>& blob) {
  ByteReader r(blob.data(), blob.size());
  std::vector<uint64_t> out;
  uint64_t vpn = 0;
  while (!r.at_end()) {
    vpn += r.varint();
    if (!r.ok()) return Error::msg("dirty page list is malformed");
    out.push_back(vpn * kPageSize);
  }
  return out;
}

}  // namespace slsdbg::store
