// A tiny function for running trampolines in the test process: the jump
// goes at kFlagsFnPc, right after a `cmp` whose flags the moved `sete`
// reads, and the moved `lea` reads rax and rcx, so a stub that changes the
// flags, rax or rcx changes the result. f(x, y, z) = 2 (x + z) + (x == y);
// at the patched pc rax = x, rcx = rdx = z.
#pragma once

#include <cstdint>
#include <vector>

namespace slsdbg::replay::testing {

inline const std::vector<uint8_t> kFlagsFn = {
    0x48, 0x89, 0xf8,        // mov rax, rdi
    0x48, 0x89, 0xd1,        // mov rcx, rdx
    0x48, 0x39, 0xf7,        // cmp rdi, rsi
    0x48, 0x8d, 0x04, 0x08,  // pc: lea rax, [rax + rcx]
    0x0f, 0x94, 0xc1,        // sete cl
    0x0f, 0xb6, 0xc9,        // movzx ecx, cl
    0x48, 0xd1, 0xe0,        // shl rax, 1
    0x48, 0x01, 0xc8,        // add rax, rcx
    0xc3,                    // ret
};
inline constexpr uint64_t kFlagsFnPc = 9;      // offset of the patched pc
inline constexpr uint64_t kFlagsFnMoved = 7;   // lea + sete

inline int64_t flags_fn_expected(int64_t x, int64_t y, int64_t z) { return 2 * (x + z) + (x == y ? 1 : 0); }

}  // namespace slsdbg::replay::testing
