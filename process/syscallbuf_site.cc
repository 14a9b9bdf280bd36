#include "process/syscallbuf_site.h"

#include <cstring>

#include "process/syscallbuf_stub.h"

namespace slsdbg::process {

std::optional<SysbufCallSite> sysbuf_call_site(uint64_t rip, uint64_t rsp,
                                               const std::function<bool(uint64_t, std::span<uint8_t>)>& read) {
  const uint64_t slow = sysbuf_stub_layout().slow;
  if (rip != slow && rip != slow + 2) return std::nullopt;
  // The stub's frame (syscallbuf_stub.cc): at rsp the site's shape (1: wide,
  // whose return address was moved past its nop), 120 bytes skipped, then
  // the return address the site's call pushed.
  uint8_t shape_bytes[8], back_bytes[8];
  if (!read(rsp, shape_bytes) || !read(rsp + 128, back_bytes)) return std::nullopt;
  uint64_t shape = 0, back = 0;
  std::memcpy(&shape, shape_bytes, 8);
  std::memcpy(&back, back_bytes, 8);
  const uint64_t site_len = shape ? 8 : 7;  // call *ptr (7 bytes), plus a nop for the wide shape
  return SysbufCallSite{back - site_len + (rip - slow), rsp + 136};
}

}  // namespace slsdbg::process
