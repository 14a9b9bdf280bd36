// checkpoints.state holds the process-state encoding as one zstd frame:
// xsave areas and sigaction tables are mostly zeros and repeat from one
// checkpoint to the next, so this shrinks the catalog several-fold.
#pragma once

#include <zstd.h>

#include <cstdint>
#include <string>
#include <vector>

#include "common/result.h"

namespace slsdbg::store {

inline constexpr int kStateZstdLevel = 1;               // fast: this is on the checkpoint path
inline constexpr uint64_t kMaxStateBytes = 64ull << 20;  // a sane bound for a decoded state

inline Result<std::vector<uint8_t>> compress_state(const std::vector<uint8_t>& raw) {
  std::vector<uint8_t> out(ZSTD_compressBound(raw.size()));
  size_t n = ZSTD_compress(out.data(), out.size(), raw.data(), raw.size(), kStateZstdLevel);
  if (ZSTD_isError(n)) return Error::msg(std::string("zstd compress of process state: ") + ZSTD_getErrorName(n));
  out.resize(n);
  return out;
}

inline Result<std::vector<uint8_t>> decompress_state(const std::vector<uint8_t>& frame) {
  unsigned long long size = ZSTD_getFrameContentSize(frame.data(), frame.size());
  if (size == ZSTD_CONTENTSIZE_ERROR || size == ZSTD_CONTENTSIZE_UNKNOWN || size > kMaxStateBytes)
    return Error::msg("process state column is not a valid zstd frame");
  std::vector<uint8_t> out(size);
  size_t n = ZSTD_decompress(out.data(), out.size(), frame.data(), frame.size());
  if (ZSTD_isError(n) || n != size) return Error::msg(std::string("process state column: zstd: ") + ZSTD_getErrorName(n));
  return out;
}

}  // namespace slsdbg::store
