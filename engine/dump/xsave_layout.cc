#include "engine/dump/xsave_layout.h"

#include <cpuid.h>

#include <algorithm>
#include <cstring>

namespace slsdbg::dump {

namespace {

constexpr size_t kXcr0Offset = 464;
constexpr size_t kLegacyAndHeader = 576;

// GDB's (Intel's) offsets of components 2..9: AVX, BNDREGS, BNDCSR, opmask,
// ZMM_Hi256, Hi16_ZMM, PT (unused), PKRU.
constexpr size_t kGdbOffset[10] = {0, 0, 576, 960, 1024, 1088, 1152, 1664, 0, 2688};

// GDB 13's X86_XSTATE_SIZE(xcr0).
size_t gdb_size(uint64_t xcr0) {
  if (xcr0 & (1u << 9)) return 2696;
  if (xcr0 & 0xe0) return 2688;
  if (xcr0 & 0x18) return 1088;
  if (xcr0 & 0x04) return 832;
  return 576;
}

}  // namespace

std::vector<uint8_t> xsave_for_gdb(const std::vector<uint8_t>& xsave) {
  if (xsave.size() < kLegacyAndHeader) return xsave;
  uint64_t xcr0 = 0;
  std::memcpy(&xcr0, xsave.data() + kXcr0Offset, sizeof xcr0);
  if ((xcr0 & 3) != 3) return xsave;  // x87 and SSE are always enabled: not a kernel area
  std::vector<uint8_t> out(std::max(gdb_size(xcr0), xsave.size()), 0);
  std::memcpy(out.data(), xsave.data(), kLegacyAndHeader);
  for (unsigned i = 2; i <= 9; i++) {
    if (!(xcr0 & (1ull << i)) || kGdbOffset[i] == 0) continue;
    unsigned size = 0, offset = 0, ecx = 0, edx = 0;
    if (!__get_cpuid_count(0xd, i, &size, &offset, &ecx, &edx)) continue;
    if (offset + size > xsave.size() || kGdbOffset[i] + size > out.size()) continue;
    std::memcpy(out.data() + kGdbOffset[i], xsave.data() + offset, size);
  }
  return out;
}

}  // namespace slsdbg::dump
