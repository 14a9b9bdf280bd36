// The length of a VEX or EVEX instruction that Capstone cannot decode.
// Debian 12's Capstone (4.0.2) rejects the mask-register instructions
// (`kmovd %ecx, %k2`: C5 FB 92 D1) and many EVEX ones (`vpcmpnequb
// (%rdi), %ymm17, %k1`), which glibc's *_evex string functions (memcmp,
// strlen, memchr ...) run on CPUs with AVX-512: a checkpoint in them got no
// patch and cost a #DB per visit of its pc (sort: up to 10^5 a segment).
// None of these instructions branches or reads rip implicitly, so moving
// one into a trampoline needs only its length and where a rip-relative
// displacement sits (trampoline_code.cc, code_function.cc).
#pragma once

#include <cstdint>
#include <optional>
#include <span>

namespace slsdbg::replay {

struct VexInsn {
  uint8_t size = 0;
  uint8_t rip_disp_at = 0;  // offset of a rip-relative disp32, 0 when none
};

// The VEX/EVEX instruction at the start of `code` (maps 0F, 0F38, 0F3A),
// or nullopt when the bytes are no such instruction or are cut short.
std::optional<VexInsn> decode_vex(std::span<const uint8_t> code);

}  // namespace slsdbg::replay
