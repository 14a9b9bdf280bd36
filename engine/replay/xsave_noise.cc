#include "engine/replay/xsave_noise.h"

#include <array>
#include <cstring>

namespace slsdbg::replay {

namespace {

constexpr uint64_t kHeaderOffset = 512;
constexpr uint64_t kSwReservedOffset = 464;  // where the kernel puts FP_XSTATE_MAGIC1 in a signal frame
constexpr uint32_t kFpXstateMagic1 = 0x46505853;
constexpr uint64_t kInuseTrackedBits = 0x7;  // x87, SSE, AVX

uint64_t u64(const uint8_t* p) {
  uint64_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

bool reserved_zero(const std::array<uint8_t, 64>& h) {
  for (size_t i = 16; i < h.size(); i++)
    if (h[i] != 0) return false;
  return true;
}

bool has_magic(const ImageReader& image, uint64_t area) {
  uint8_t m[4];
  if (!image(area + kSwReservedOffset, m).ok()) return false;
  uint32_t v;
  std::memcpy(&v, m, sizeof v);
  return v == kFpXstateMagic1;
}

bool explains(uint64_t area, const ImageReader& live, const ImageReader& recorded) {
  std::array<uint8_t, 64> hl{}, hr{};
  if (!live(area + kHeaderOffset, hl).ok() || !recorded(area + kHeaderOffset, hr).ok()) return false;
  const uint64_t bv_l = u64(hl.data()), bv_r = u64(hr.data());
  const uint64_t comp_l = u64(hl.data() + 8), comp_r = u64(hr.data() + 8);
  if (comp_l != comp_r || !reserved_zero(hl) || !reserved_zero(hr)) return false;
  if (bv_l == bv_r || ((bv_l ^ bv_r) & ~kInuseTrackedBits) != 0) return false;
  if ((bv_l | bv_r) >> 20) return false;  // not a plausible feature set
  if (comp_l >> 63) return ((bv_l | bv_r) & ~comp_l) == 0;  // compacted: XSTATE_BV within XCOMP_BV
  return comp_l == 0 && has_magic(live, area) && has_magic(recorded, area);
}

}  // namespace

std::optional<uint64_t> xsave_area_explaining(uint64_t addr, const ImageReader& live, const ImageReader& recorded) {
  const uint64_t first = addr & ~uint64_t{63};
  for (uint64_t back = 0; back < kXsaveAreaBytes && back <= first; back += 64) {
    const uint64_t area = first - back;
    if (addr >= area + kXsaveAreaBytes) continue;
    if (explains(area, live, recorded)) return area;
  }
  return std::nullopt;
}

}  // namespace slsdbg::replay
