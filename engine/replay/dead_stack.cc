#include "engine/replay/dead_stack.h"

namespace slsdbg::replay {

std::optional<AddressRange> dead_stack_range(const store::ProcessState& state, uint64_t rsp) {
  for (const store::Mapping& m : state.mappings) {
    if (rsp < m.start || rsp >= m.end) continue;
    if (rsp < m.start + kRedZoneBytes) return std::nullopt;
    return AddressRange{m.start, rsp - kRedZoneBytes};
  }
  return std::nullopt;
}

std::optional<std::vector<ByteRun>> dead_only_differences(uint64_t vaddr, std::span<const uint8_t> live,
                                                         std::span<const uint8_t> recorded,
                                                         const std::optional<AddressRange>& dead) {
  std::vector<ByteRun> runs;
  const size_t n = std::min(live.size(), recorded.size());
  for (size_t i = 0; i < n; i++) {
    if (live[i] == recorded[i]) continue;
    const uint64_t a = vaddr + i;
    if (!dead || !dead->contains(a)) return std::nullopt;
    add_byte(runs, a);
  }
  return runs;
}

}  // namespace slsdbg::replay
