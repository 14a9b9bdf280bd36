// A base memory image with some ranges replaced by other bytes: the last good
// checkpoint with the watched words as one watchpoint stop saw them (--expr
// and --cmd refinement), or with some changed words as the first bad
// checkpoint has them (--cmd discovery, cmd_discover.h).
#pragma once

#include <algorithm>
#include <cstring>
#include <vector>

#include "engine/bisect/invariant.h"
#include "engine/dump/memory_source.h"

namespace slsdbg::bisect {

class OverlayMemory final : public dump::MemorySource {
 public:
  // `bytes`: the ranges' replacement bytes, concatenated in the ranges' order.
  // All three must outlive the overlay.
  OverlayMemory(dump::MemorySource& base, const std::vector<MemoryRange>& ranges, const std::vector<uint8_t>& bytes)
      : base_(base), ranges_(ranges), bytes_(bytes) {}
  Status read(uint64_t addr, std::span<uint8_t> out) override {
    TRY(base_.read(addr, out));
    size_t off = 0;
    for (const auto& r : ranges_) {
      uint64_t lo = std::max(addr, r.addr), hi = std::min(addr + out.size(), r.addr + r.len);
      if (lo < hi) std::memcpy(out.data() + (lo - addr), bytes_.data() + off + (lo - r.addr), hi - lo);
      off += r.len;
    }
    return ok_status();
  }

 private:
  dump::MemorySource& base_;
  const std::vector<MemoryRange>& ranges_;
  const std::vector<uint8_t>& bytes_;
};

}  // namespace slsdbg::bisect
