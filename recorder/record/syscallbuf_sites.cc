#include "recorder/record/syscallbuf_sites.h"

#include <algorithm>
#include <cstring>

namespace slsdbg::recorder {

std::vector<SysbufSite> find_syscall_shapes(std::span<const uint8_t> code, uint64_t base) {
  std::vector<SysbufSite> out;
  const uint8_t* p = code.data();
  const size_t n = code.size();
  // A REX prefix before the `mov`/`xor` would make it set another register.
  auto rex = [&](size_t at) { return at < n && (p[at] & 0xf0) == 0x40; };
  for (size_t i = 6; i + sizeof kSysbufNarrowSite <= n; i++) {
    // memchr: a plain byte loop over libc's 1.5 MiB was 5% of a short recording.
    const void* q = std::memchr(p + i, 0x0f, n - sizeof kSysbufNarrowSite + 1 - i);
    if (!q) break;
    i = static_cast<const uint8_t*>(q) - p;
    if (p[i + 1] != 0x05) continue;
    const bool wide = i + sizeof kSysbufWideSite <= n && std::memcmp(p + i, kSysbufWideSite, sizeof kSysbufWideSite) == 0;
    const bool narrow = !wide && i + sizeof kSysbufNarrowSite <= n &&
                        std::memcmp(p + i, kSysbufNarrowSite, sizeof kSysbufNarrowSite) == 0;
    if (!wide && !narrow) continue;
    long nr = -1;
    if (p[i - 2] == 0x31 && p[i - 1] == 0xc0 && !rex(i - 3)) {
      nr = 0;  // xor %eax, %eax
    } else if (p[i - 5] == 0xb8 && !rex(i - 6)) {
      uint32_t imm;
      std::memcpy(&imm, p + i - 4, sizeof imm);
      nr = imm;
    }
    out.push_back({base + i, wide, nr});
  }
  return out;
}

std::vector<SysbufSite> find_sysbuf_sites(std::span<const uint8_t> code, uint64_t base, bool (*bufferable)(long)) {
  std::vector<SysbufSite> out = find_syscall_shapes(code, base);
  std::erase_if(out, [&](const SysbufSite& s) { return s.nr < 0 || !bufferable(s.nr); });
  return out;
}

}  // namespace slsdbg::recorder
