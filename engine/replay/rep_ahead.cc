#include "engine/replay/rep_ahead.h"

#include <cstring>

namespace slsdbg::replay {

namespace {
constexpr uint64_t kPage = 4096;
constexpr uint64_t kDF = 0x400;
}  // namespace

std::optional<AddressRange> rep_remaining_destination(const RepString& op, const user_regs_struct& at) {
  if ((op.op != RepOp::Movs && op.op != RepOp::Stos) || op.counts_ecx || at.rcx == 0) return std::nullopt;
  const uint64_t size = at.rcx * op.element_size;
  if (size / op.element_size != at.rcx) return std::nullopt;
  if (at.eflags & kDF) return AddressRange{at.rdi + op.element_size - size, at.rdi + op.element_size};
  return AddressRange{at.rdi, at.rdi + size};
}

std::optional<std::vector<ByteRun>> ahead_store_differences(uint64_t vaddr, std::span<const uint8_t> live,
                                                            std::span<const uint8_t> recorded, const RepString& op,
                                                            const user_regs_struct& at, const ImageReader& live_image) {
  const std::optional<AddressRange> dest = rep_remaining_destination(op, at);
  if (!dest || live.size() < kPage || recorded.size() < kPage) return std::nullopt;
  // The part of the page the remaining iterations write, and for a movs the
  // source bytes they copy there (same offsets from rsi as from rdi).
  const uint64_t lo = std::max(vaddr, dest->begin), hi = std::min(vaddr + kPage, dest->end);
  std::vector<uint8_t> source;
  if (op.op == RepOp::Movs && lo < hi) {
    source.resize(hi - lo);
    if (!live_image(at.rsi + (lo - at.rdi), source).ok()) return std::nullopt;
  }
  std::vector<ByteRun> runs;
  for (size_t i = 0; i < kPage; i++) {
    if (live[i] == recorded[i]) continue;
    const uint64_t a = vaddr + i;
    if (a < lo || a >= hi) return std::nullopt;
    const uint8_t stored = op.op == RepOp::Movs
                               ? source[a - lo]
                               : reinterpret_cast<const uint8_t*>(&at.rax)[(a - at.rdi) % op.element_size];
    if (recorded[i] != stored) return std::nullopt;
    if (!runs.empty() && runs.back().addr + runs.back().len == a)
      runs.back().len++;
    else
      runs.push_back(ByteRun{a, 1});
  }
  return runs;
}

}  // namespace slsdbg::replay
