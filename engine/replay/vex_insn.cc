#include "engine/replay/vex_insn.h"

namespace slsdbg::replay {

namespace {

constexpr size_t kMaxInsn = 15;

bool segment_or_address_prefix(uint8_t b) {
  return b == 0x26 || b == 0x2e || b == 0x36 || b == 0x3e || b == 0x64 || b == 0x65 || b == 0x67;
}

// Map 0F opcodes with an imm8 (pshufd/psrl*-by-immediate, cmpps, pinsrw,
// pextrw, shufps); every map 0F3A opcode has one, no map 0F38 opcode does.
bool map1_has_imm8(uint8_t op) { return (op >= 0x70 && op <= 0x73) || (op >= 0xc2 && op <= 0xc6 && op != 0xc3); }

}  // namespace

std::optional<VexInsn> decode_vex(std::span<const uint8_t> code) {
  const size_t n = code.size() < kMaxInsn ? code.size() : kMaxInsn;
  size_t i = 0;
  // 66/F2/F3/REX before a VEX prefix make it #UD: only these may precede.
  while (i < n && segment_or_address_prefix(code[i])) i++;
  if (i + 1 >= n) return std::nullopt;
  unsigned map = 0;
  size_t op_at = 0;
  switch (code[i]) {
    case 0xc5: map = 1; op_at = i + 2; break;
    case 0xc4: map = code[i + 1] & 0x1f; op_at = i + 3; break;
    case 0x62:
      // EVEX: P0 = R X B R' 0 0 m m, P1 = W vvvv 1 pp.
      if (i + 2 >= n || (code[i + 1] & 0x0c) != 0 || (code[i + 2] & 0x04) == 0) return std::nullopt;
      map = code[i + 1] & 0x03;
      op_at = i + 4;
      break;
    default: return std::nullopt;
  }
  if (map < 1 || map > 3 || op_at >= n) return std::nullopt;
  const uint8_t op = code[op_at];
  if (map == 1 && op == 0x77 && code[i] != 0x62) return VexInsn{static_cast<uint8_t>(op_at + 1), 0};  // vzeroupper/all
  size_t at = op_at + 1;
  if (at >= n) return std::nullopt;
  const uint8_t modrm = code[at++];
  const unsigned mod = modrm >> 6, rm = modrm & 7;
  size_t disp = 0, rip_disp_at = 0;
  if (mod != 3) {
    if (rm == 4) {
      if (at >= n) return std::nullopt;
      const uint8_t sib = code[at++];
      if (mod == 0 && (sib & 7) == 5) disp = 4;
    }
    if (mod == 0 && rm == 5) {
      rip_disp_at = at;
      disp = 4;
    }
    if (mod == 1) disp = 1;
    if (mod == 2) disp = 4;
  }
  at += disp;
  if (map == 3 || (map == 1 && map1_has_imm8(op))) at += 1;
  if (at > n) return std::nullopt;
  return VexInsn{static_cast<uint8_t>(at), static_cast<uint8_t>(rip_disp_at)};
}

}  // namespace slsdbg::replay
