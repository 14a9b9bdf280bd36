// Bytes of an XSAVE area that replay cannot reproduce. An XSAVE area's header
// (XSTATE_BV) and which legacy fields XSAVEC/XSAVEOPT write depend on the
// CPU's XINUSE bits for x87/SSE/AVX, which the kernel's FPU switching and
// ptrace's register accesses change and no program input decides. glibc's
// lazy-binding trampoline (_dl_runtime_resolve_xsavec) saves such an area on
// the stack and signal frames hold one, so a checkpoint's dead stack can
// differ there between record and replay while the program cannot tell.
//
// A difference counts as XINUSE noise only when it lies inside an area whose
// 64-byte header sits at a 64-byte boundary in both images, with equal
// XCOMP_BV (compacted, bit 63 set; or standard format with the kernel's
// FP_XSTATE_MAGIC1 in the software-reserved bytes, as in a signal frame),
// zero reserved header bytes, and XSTATE_BV values that differ only in the
// x87/SSE/AVX bits. Replay then writes the recorded area into the live process,
// so the state equals the checkpoint again.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>

#include "common/result.h"

namespace slsdbg::replay {

inline constexpr uint64_t kXsaveAreaBytes = 576;  // legacy region (512) + header (64)

// Reads `out.size()` bytes at an address of one image (live or recorded).
using ImageReader = std::function<Status(uint64_t addr, std::span<uint8_t> out)>;

// The start of the XSAVE area that explains a difference at `addr` between
// the two images, or nullopt when the difference is real.
std::optional<uint64_t> xsave_area_explaining(uint64_t addr, const ImageReader& live, const ImageReader& recorded);

}  // namespace slsdbg::replay
