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
  // What the remaining iterations store in this page's part of their destination.
  const uint64_t lo = std::max(vaddr, ahead->begin), hi = std::min(vaddr + kPage, ahead->end);
  std::vector<uint8_t> stored(lo < hi ? hi - lo : 0);
  if (lo < hi && !rep_ahead_bytes(*ahead, lo, stored, live_image).ok()) return std::nullopt;
  std::vector<ByteRun> runs;
  for (size_t i = 0; i < kPage; i++) {
    if (live[i] == recorded[i]) continue;
    const uint64_t a = vaddr + i;
    if (a < lo || a >= hi || recorded[i] != stored[a - lo]) return std::nullopt;
    if (!runs.empty() && runs.back().addr + runs.back().len == a)
      runs.back().len++;
    else
      runs.push_back(ByteRun{a, 1});
  }
  return runs;
}

}  // namespace slsdbg::replay
