#include "engine/replay/rep_ahead.h"

#include "engine/replay/rep_store.h"

namespace slsdbg::replay {

namespace {
constexpr uint64_t kPage = 4096;

// The threaded replay's description of the same stores (rep_store.h).
std::optional<RepAhead> ahead_of(const RepString& op, const user_regs_struct& at) {
  if ((op.op != RepOp::Movs && op.op != RepOp::Stos) || op.counts_ecx) return std::nullopt;
  return rep_ahead(RepStore{op.element_size, op.op == RepOp::Movs}, at);
}
}  // namespace

std::optional<AddressRange> rep_remaining_destination(const RepString& op, const user_regs_struct& at) {
  const std::optional<RepAhead> a = ahead_of(op, at);
  if (!a) return std::nullopt;
  return AddressRange{a->begin, a->end};
}

std::optional<std::vector<ByteRun>> ahead_store_differences(uint64_t vaddr, std::span<const uint8_t> live,
                                                            std::span<const uint8_t> recorded, const RepString& op,
                                                            const user_regs_struct& at, const ImageReader& live_image) {
  const std::optional<RepAhead> ahead = ahead_of(op, at);
  if (!ahead || live.size() < kPage || recorded.size() < kPage) return std::nullopt;
  const std::vector<int> stored = rep_stores_in_page(vaddr, {&*ahead, 1}, live_image);
  if (stored.empty()) return std::nullopt;
  std::vector<ByteRun> runs;
  for (size_t i = 0; i < kPage; i++) {
    if (live[i] == recorded[i]) continue;
    if (stored[i] != recorded[i]) return std::nullopt;
    add_byte(runs, vaddr + i);
  }
  return runs;
}

}  // namespace slsdbg::replay
