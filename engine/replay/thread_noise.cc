#include "engine/replay/thread_noise.h"

#include <algorithm>
#include <cstring>

namespace slsdbg::replay {

namespace {

constexpr uint64_t kPage = 4096;

bool in_any(std::span<const AddressRange> ranges, uint64_t a) {
  for (const AddressRange& r : ranges)
    if (r.contains(a)) return true;
  return false;
}

}  // namespace

bool equal_but_thread_noise(uint64_t vaddr, std::span<const uint8_t> live, std::span<const uint8_t> recorded,
                            std::span<const AddressRange> dead, std::span<const RepAhead> ahead,
                            const ImageReader& live_image,
                            const ImageReader& recorded_image, ThreadSettle& settle) {
  if (std::memcmp(live.data(), recorded.data(), kPage) == 0) return true;
  // Reads inside the page at hand come from the copies: the XSAVE search
  // probes many candidate headers.
  const auto image = [vaddr](std::span<const uint8_t> page, const ImageReader& other) -> ImageReader {
    return [vaddr, page, &other](uint64_t a, std::span<uint8_t> out) {
      if (a >= vaddr && a + out.size() <= vaddr + kPage) {
        std::memcpy(out.data(), page.data() + (a - vaddr), out.size());
        return ok_status();
      }
      return other(a, out);
    };
  };
  const ImageReader live_here = image(live, live_image), recorded_here = image(recorded, recorded_image);
  ThreadSettle found;
  const std::vector<int> rep_stores = rep_stores_in_page(vaddr, ahead, recorded_here);
  for (size_t i = 0; i < kPage; i++) {
    if (live[i] == recorded[i]) continue;
    const uint64_t a = vaddr + i;
    if (in_any(dead, a)) {
      add_byte(found.dead_runs, a);
      continue;
    }
    if (!rep_stores.empty() && rep_stores[i] == recorded[i]) {
      add_byte(found.rep_ahead_runs, a);
      continue;
    }
    bool covered = false;
    for (const XsaveArea& x : found.xsave_areas) covered = covered || x.contains(a);
    if (covered) continue;
    std::optional<XsaveArea> area = xsave_area_explaining(a, live_here, recorded_here);
    if (!area) return false;
    found.xsave_areas.push_back(*area);
  }
  settle.dead_runs.insert(settle.dead_runs.end(), found.dead_runs.begin(), found.dead_runs.end());
  settle.rep_ahead_runs.insert(settle.rep_ahead_runs.end(), found.rep_ahead_runs.begin(), found.rep_ahead_runs.end());
  settle.xsave_areas.insert(settle.xsave_areas.end(), found.xsave_areas.begin(), found.xsave_areas.end());
  return true;
}

}  // namespace slsdbg::replay
