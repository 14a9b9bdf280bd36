#include "engine/replay/rep_string.h"

namespace slsdbg::replay {

std::optional<RepString> decode_rep_string(std::span<const uint8_t> code) {
  bool rep = false, repne = false, operand16 = false, rex_w = false, addr32 = false;
  for (size_t i = 0; i < code.size(); i++) {
    const uint8_t b = code[i];
    if (b == 0xf3 || b == 0xf2) {
      rep = true;
      repne = b == 0xf2;  // the last of them counts
    } else if (b == 0x66) {
      operand16 = true;
    } else if ((b & 0xf0) == 0x40) {
      rex_w = (b & 0x08) != 0;
    } else if (b == 0x67) {
      addr32 = true;
    } else if (b == 0x2e || b == 0x3e || b == 0x26 || b == 0x36 || b == 0x64 || b == 0x65) {
      // segment prefixes change neither size nor direction
    } else {
      const bool string_op = (b >= 0xa4 && b <= 0xa7) || (b >= 0xaa && b <= 0xaf) || (b >= 0x6c && b <= 0x6f);
      if (!rep || !string_op) return std::nullopt;
      RepString s;
      const bool byte_form = b == 0xa4 || b == 0xa6 || b == 0xaa || b == 0xac || b == 0xae || b == 0x6c || b == 0x6e;
      s.element_size = byte_form ? 1 : rex_w ? 8 : operand16 ? 2 : 4;
      s.walks_rdi = !(b == 0xac || b == 0xad || b == 0x6e || b == 0x6f);
      s.length = static_cast<unsigned>(i + 1);
      s.counts_ecx = addr32;
      const bool compares = b == 0xa6 || b == 0xa7 || b == 0xae || b == 0xaf;  // cmps, scas
      if (compares) s.until = repne ? RepUntil::ZeroFlagSet : RepUntil::ZeroFlagClear;
      return s;
    }
  }
  return std::nullopt;
}

bool rep_ended_early(const RepString& s, uint64_t eflags) {
  constexpr uint64_t kZF = 0x40;
  switch (s.until) {
    case RepUntil::Count: return false;
    case RepUntil::ZeroFlagClear: return (eflags & kZF) == 0;
    case RepUntil::ZeroFlagSet: return (eflags & kZF) != 0;
  }
  return false;
}

}  // namespace slsdbg::replay
