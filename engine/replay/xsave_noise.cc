#include "engine/replay/xsave_noise.h"

#include <cpuid.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <vector>

namespace slsdbg::replay {

namespace {

constexpr uint64_t kHeaderOffset = 512;
constexpr uint64_t kSwReservedOffset = 464;  // where the kernel puts FP_XSTATE_MAGIC1 in a signal frame
constexpr uint64_t kSwBytesCompared = 20;    // magic1, extended_size, xfeatures, xstate_size
constexpr uint32_t kFpXstateMagic1 = 0x46505853;
constexpr uint64_t kInuseTrackedBits = 0x7;  // x87, SSE, AVX
constexpr unsigned kPkruComponent = 9;
constexpr uint64_t kMaxFrameXstate = 12288;  // larger than any user XSAVE area (AMX included)

uint64_t u64(const uint8_t* p) {
  uint64_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

uint32_t u32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

bool reserved_zero(const uint8_t* header) {
  for (size_t i = 16; i < 64; i++)
    if (header[i] != 0) return false;
  return true;
}

bool has_magic(const ImageReader& image, uint64_t area) {
  uint8_t m[4];
  if (!image(area + kSwReservedOffset, m).ok()) return false;
  return u32(m) == kFpXstateMagic1;
}

// Kind 1 (xsave_noise.h): XSTATE_BV differs in the XINUSE-tracked bits.
bool inuse_noise(uint64_t area, const ImageReader& live, const ImageReader& recorded) {
  std::array<uint8_t, 64> hl{}, hr{};
  if (!live(area + kHeaderOffset, hl).ok() || !recorded(area + kHeaderOffset, hr).ok()) return false;
  const uint64_t bv_l = u64(hl.data()), bv_r = u64(hr.data());
  const uint64_t comp_l = u64(hl.data() + 8), comp_r = u64(hr.data() + 8);
  if (comp_l != comp_r || !reserved_zero(hl.data()) || !reserved_zero(hr.data())) return false;
  if (bv_l == bv_r || ((bv_l ^ bv_r) & ~kInuseTrackedBits) != 0) return false;
  if ((bv_l | bv_r) >> 20) return false;  // not a plausible feature set
  if (comp_l >> 63) return ((bv_l | bv_r) & ~comp_l) == 0;  // compacted: XSTATE_BV within XCOMP_BV
  return comp_l == 0 && has_magic(live, area) && has_magic(recorded, area);
}

// Kind 2 (xsave_noise.h): a signal frame's area whose differing bytes are
// all ones XSAVE left unwritten in one image or the other. Returns the
// area's size (the kernel's xstate_size) when it explains them.
std::optional<uint64_t> unwritten_noise(uint64_t area, const ImageReader& live, const ImageReader& recorded,
                                        const ComponentTable& components) {
  std::array<uint8_t, kSwBytesCompared> sw_l{}, sw_r{};
  if (!live(area + kSwReservedOffset, sw_l).ok() || u32(sw_l.data()) != kFpXstateMagic1 ||
      !recorded(area + kSwReservedOffset, sw_r).ok() || sw_l != sw_r)
    return std::nullopt;
  const uint64_t size = u32(sw_l.data() + 16);
  if (size < kXsaveAreaBytes || size > kMaxFrameXstate) return std::nullopt;
  std::vector<uint8_t> l(size), r(size);
  if (!live(area, l).ok() || !recorded(area, r).ok()) return std::nullopt;
  const uint8_t* hl = l.data() + kHeaderOffset;
  const uint8_t* hr = r.data() + kHeaderOffset;
  if (u64(hl + 8) != 0 || u64(hr + 8) != 0 || !reserved_zero(hl) || !reserved_zero(hr)) return std::nullopt;
  const uint64_t bv_l = u64(hl), bv_r = u64(hr);
  for (uint64_t i = 0; i < size; i++)
    if (l[i] != r[i] && xsave_writes(i, bv_l, components) && xsave_writes(i, bv_r, components)) return std::nullopt;
  return size;
}

}  // namespace

ComponentTable this_cpu_components() {
  return [](unsigned i) -> std::optional<ComponentPlace> {
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    if (i < 2 || i > 62 || !__get_cpuid_count(0xd, i, &eax, &ebx, &ecx, &edx)) return std::nullopt;
    if (eax == 0 || (ecx & 1)) return std::nullopt;  // absent, or supervisor state (never in a user frame)
    return ComponentPlace{ebx, eax};
  };
}

bool xsave_writes(uint64_t offset, uint64_t xstate_bv, const ComponentTable& components) {
  if (offset < 24 || (offset >= 32 && offset < 160)) return (xstate_bv & 1) != 0;  // x87
  if (offset < 32) return true;                                                        // MXCSR, MXCSR_MASK
  if (offset < 416) return (xstate_bv & 2) != 0;                                      // XMM0-15
  if (offset < kSwReservedOffset) return false;                                       // reserved legacy bytes
  if (offset < kXsaveAreaBytes) return true;  // the kernel's software bytes, the header
  for (unsigned i = 2; i < 63; i++) {
    if (!(xstate_bv >> i & 1)) continue;
    const std::optional<ComponentPlace> c = components(i);
    // PKRU's area is 8 bytes of which XSAVE writes the register's 4.
    const uint64_t written = i == kPkruComponent ? std::min<uint64_t>(c ? c->size : 0, 4) : (c ? c->size : 0);
    if (c && offset >= c->offset && offset < c->offset + written) return true;
  }
  return false;  // a component in its initial state, or padding between components
}

std::optional<XsaveArea> xsave_area_explaining(uint64_t addr, const ImageReader& live, const ImageReader& recorded,
                                               const ComponentTable& components) {
  const uint64_t first = addr & ~uint64_t{63};
  for (uint64_t back = 0; back < kXsaveAreaBytes && back <= first; back += 64) {
    const uint64_t area = first - back;
    if (addr >= area + kXsaveAreaBytes) continue;
    if (inuse_noise(area, live, recorded)) return XsaveArea{area, kXsaveAreaBytes};
  }
  for (uint64_t back = 0; back < kMaxFrameXstate && back <= first; back += 64) {
    const uint64_t area = first - back;
    if (std::optional<uint64_t> size = unwritten_noise(area, live, recorded, components); size && addr < area + *size)
      return XsaveArea{area, *size};
  }
  return std::nullopt;
}

std::optional<XsaveArea> xsave_area_explaining(uint64_t addr, const ImageReader& live, const ImageReader& recorded) {
  static const ComponentTable cpu = this_cpu_components();
  return xsave_area_explaining(addr, live, recorded, cpu);
}

}  // namespace slsdbg::replay
