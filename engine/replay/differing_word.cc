#include "engine/replay/differing_word.h"

#include <cstring>
#include <vector>

namespace slsdbg::replay {

namespace {
constexpr uint64_t kPage = 4096;
}  // namespace

std::optional<MemCheck> real_differing_word(uint64_t vaddr, std::span<const uint8_t> live,
                                            std::span<const uint8_t> recorded,
                                            const std::optional<AddressRange>& dead, const ImageReader& live_image,
                                            const ImageReader& recorded_image, const ComponentTable& components) {
  if (live.size() < kPage || recorded.size() < kPage) return std::nullopt;
  // Reads inside the page come from the copies in hand: the search probes
  // many candidate headers.
  const auto local = [vaddr](std::span<const uint8_t> page, const ImageReader& outer) -> ImageReader {
    return [vaddr, page, &outer](uint64_t a, std::span<uint8_t> out) -> Status {
      if (a >= vaddr && a + out.size() <= vaddr + kPage) {
        std::memcpy(out.data(), page.data() + (a - vaddr), out.size());
        return ok_status();
      }
      return outer(a, out);
    };
  };
  const ImageReader live_reader = local(live, live_image);
  const ImageReader recorded_reader = local(recorded, recorded_image);
  std::vector<XsaveArea> areas;
  const auto noise = [&](uint64_t a) {
    if (dead && dead->contains(a)) return true;
    for (const XsaveArea& x : areas)
      if (x.contains(a)) return true;
    return false;
  };
  // From the end: a loop that fills memory upward (a growing array, a bump
  // allocator, python's list.append) writes the page's last differing word
  // only at the target's visit, while its first one is equal again at the
  // next visit, and the next (mawk, the interpreters: a trap per visit).
  for (size_t i = kPage; i-- > 0;) {
    if (live[i] == recorded[i]) continue;
    const uint64_t addr = vaddr + i;
    if (noise(addr)) continue;
    if (std::optional<XsaveArea> area = xsave_area_explaining(addr, live_reader, recorded_reader, components)) {
      areas.push_back(*area);
      continue;
    }
    const uint64_t word = addr & ~uint64_t(7);
    bool clean = word >= vaddr && word + 8 <= vaddr + kPage;
    for (uint64_t b = word; clean && b < word + 8; b++) clean = !noise(b);
    if (!clean) continue;
    MemCheck m{word, 0};
    std::memcpy(&m.value, recorded.data() + (word - vaddr), 8);
    return m;
  }
  return std::nullopt;
}

bool word_differs(const MemCheck& m, const ImageReader& live_image) {
  uint8_t bytes[8];
  if (!live_image(m.addr, bytes).ok()) return false;
  return std::memcmp(bytes, &m.value, 8) != 0;
}

}  // namespace slsdbg::replay
