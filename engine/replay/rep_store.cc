#include "engine/replay/rep_store.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "engine/replay/replay_session.h"

namespace slsdbg::replay {

namespace {
constexpr uint64_t kDF = 0x400;
constexpr uint64_t kMaxBytes = 256ull << 20;  // a bound on one emulated run
}  // namespace

std::optional<RepStore> decode_rep_store(std::span<const uint8_t> code) {
  size_t i = 0;
  bool rep = false, opsize = false;
  for (; i < code.size() && (code[i] == 0xf3 || code[i] == 0x66); i++) (code[i] == 0xf3 ? rep : opsize) = true;
  if (!rep || i >= code.size()) return std::nullopt;
  bool rex_w = false;
  if ((code[i] & 0xf0) == 0x40) {
    rex_w = code[i] & 0x08;
    if (++i >= code.size()) return std::nullopt;
  }
  RepStore op;
  switch (code[i]) {
    case 0xa4: op.movs = true; break;
    case 0xaa: break;
    case 0xa5: op.movs = true; [[fallthrough]];
    case 0xab: op.size = rex_w ? 8 : opsize ? 2 : 4; break;
    default: return std::nullopt;
  }
  return op;
}

std::optional<uint64_t> iterations_between(const RepStore& op, const user_regs_struct& at,
                                           const user_regs_struct& target) {
  if (at.rip != target.rip || target.rcx >= at.rcx) return std::nullopt;
  const uint64_t n = at.rcx - target.rcx;
  const uint64_t step = n * op.size;
  const bool down = at.eflags & kDF;
  if (target.rdi != (down ? at.rdi - step : at.rdi + step)) return std::nullopt;
  if (op.movs && target.rsi != (down ? at.rsi - step : at.rsi + step)) return std::nullopt;
  user_regs_struct moved = at;
  moved.rcx = target.rcx;
  moved.rdi = target.rdi;
  if (op.movs) moved.rsi = target.rsi;
  if (!same_general_registers(moved, target, nullptr, RegsAt::Anywhere)) return std::nullopt;
  return n;
}

Status run_iterations(process::Task& task, const RepStore& op, user_regs_struct at, uint64_t n) {
  const uint64_t len = n * op.size;
  if (len > kMaxBytes) return Error::msg("a rep string instruction of " + std::to_string(len) + " bytes to run");
  const bool down = at.eflags & kDF;
  // Element i goes to dst + i*size (up) or dst - i*size (down).
  const uint64_t dst_lo = down ? at.rdi - len + op.size : at.rdi;
  if (!op.movs) {
    std::vector<uint8_t> bytes(len);
    for (uint64_t i = 0; i < len; i += op.size) std::memcpy(&bytes[i], &at.rax, op.size);
    TRY(task.write_memory(RemoteAddr(dst_lo), bytes));
  } else if (const uint64_t src_lo = down ? at.rsi - len + op.size : at.rsi;
             src_lo + len <= dst_lo || dst_lo + len <= src_lo) {
    // Apart (memcpy between a heap and a thread arena, gigabytes apart):
    // the source as it is, not the gap between, which may be unmapped.
    std::vector<uint8_t> bytes(len);
    TRY(task.read_memory(RemoteAddr(src_lo), bytes));
    TRY(task.write_memory(RemoteAddr(dst_lo), bytes));
    at.rsi = down ? at.rsi - len : at.rsi + len;
  } else {
    // Overlapping: element by element in one buffer over both ranges, which
    // repeats bytes as the CPU's copy does.
    const uint64_t lo = std::min(src_lo, dst_lo), hi = std::max(src_lo, dst_lo) + len;
    std::vector<uint8_t> buf(hi - lo);
    TRY(task.read_memory(RemoteAddr(lo), buf));
    for (uint64_t i = 0; i < n; i++) {
      const uint64_t k = down ? n - 1 - i : i;
      std::memmove(&buf[dst_lo - lo + k * op.size], &buf[src_lo - lo + k * op.size], op.size);
    }
    TRY(task.write_memory(RemoteAddr(dst_lo), std::span<const uint8_t>(&buf[dst_lo - lo], len)));
    at.rsi = down ? at.rsi - len : at.rsi + len;
  }
  at.rdi = down ? at.rdi - len : at.rdi + len;
  at.rcx -= n;
  return task.set_regs(at);
}

std::optional<RepAhead> rep_ahead(const RepStore& op, const user_regs_struct& r) {
  if (r.rcx == 0 || r.rcx > kMaxBytes / op.size) return std::nullopt;
  const uint64_t len = r.rcx * op.size;
  const bool down = r.eflags & kDF;
  RepAhead a{op, down ? r.rdi + op.size - len : r.rdi, 0, r.rax, r.rdi, r.rsi};
  a.end = a.begin + len;
  if (op.movs) {
    const uint64_t src = a.begin + (r.rsi - r.rdi);
    if (src < a.end && a.begin < src + len) return std::nullopt;
  }
  return a;
}

Status rep_ahead_bytes(const RepAhead& ahead, uint64_t addr, std::span<uint8_t> out, const ImageReader& source) {
  if (addr < ahead.begin || addr + out.size() > ahead.end) return Error::msg("outside the rep string's stores");
  if (ahead.op.movs) return source(addr + (ahead.rsi - ahead.rdi), out);
  // Element i starts at rdi +/- i*size: a byte's place in the element is its distance from rdi modulo size.
  for (size_t i = 0; i < out.size(); i++)
    out[i] = static_cast<uint8_t>(ahead.rax >> (8 * ((addr + i - ahead.rdi) & (ahead.op.size - 1))));
  return ok_status();
}

std::vector<int> rep_stores_in_page(uint64_t vaddr, std::span<const RepAhead> ahead, const ImageReader& source) {
  constexpr uint64_t kPage = 4096;
  std::vector<int> out;
  for (const RepAhead& r : ahead) {
    const uint64_t lo = std::max(vaddr, r.begin), hi = std::min(vaddr + kPage, r.end);
    if (lo >= hi) continue;
    std::vector<uint8_t> bytes(hi - lo);
    if (!rep_ahead_bytes(r, lo, bytes, source).ok()) continue;
    if (out.empty()) out.assign(kPage, -1);
    for (uint64_t a = lo; a < hi; a++) out[a - vaddr] = bytes[a - lo];
  }
  return out;
}

}  // namespace slsdbg::replay
