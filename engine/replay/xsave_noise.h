// Bytes of an XSAVE area that replay cannot reproduce. Two kinds, both
// invisible to a program that does not read its own saved FPU state:
//
// 1. XINUSE noise. An XSAVE area's header (XSTATE_BV) and which legacy fields
//    XSAVEC/XSAVEOPT write depend on the CPU's XINUSE bits for x87/SSE/AVX,
//    which the kernel's FPU switching and ptrace's register accesses change
//    and no program input decides. glibc's lazy-binding trampoline
//    (_dl_runtime_resolve_xsavec) saves such an area on the stack and signal
//    frames hold one. Such a difference counts as noise only inside an area
//    whose 64-byte header sits at a 64-byte boundary in both images, with
//    equal XCOMP_BV (compacted, bit 63 set; or standard format with the
//    kernel's FP_XSTATE_MAGIC1 in the software-reserved bytes, as in a signal
//    frame), zero reserved header bytes, and XSTATE_BV values that differ only
//    in the x87/SSE/AVX bits.
//
// 2. Bytes a signal frame's XSAVE never writes. The kernel XSAVEs straight
//    into the user stack with page faults disabled; when the stack page is
//    write-protected (as the recorder's dirty tracking leaves it) the XSAVE
//    faults, the kernel zeroes the whole frame area and retries. Bytes XSAVE
//    does not write (the reserved legacy bytes 416..463, padding between
//    components, the areas of components in their initial state) therefore
//    hold zeros in one run and stale stack bytes in another. In a standard
//    format area with the same software-reserved bytes in both images, a
//    difference is noise when every differing byte of the area is one that
//    XSAVE left unwritten in at least one of the two images.
//
// Replay then writes the recorded area into the live process, so the state
// equals the checkpoint again.
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

// An XSAVE area that explains differences: [start, start + size) is to be
// set to the recorded bytes.
struct XsaveArea {
  uint64_t start = 0;
  uint64_t size = 0;
  bool contains(uint64_t a) const { return a >= start && a < start + size; }
};

// The XSAVE area that explains a difference at `addr` between the two
// images, or nullopt when the difference is real.
std::optional<XsaveArea> xsave_area_explaining(uint64_t addr, const ImageReader& live, const ImageReader& recorded);

// Where XSAVE puts user state component `i` (>= 2) in the standard format
// on this CPU: {offset, size}; nullopt when the CPU has no such component.
// Record and replay run on the same CPU model (binary_check.h).
struct ComponentPlace {
  uint32_t offset = 0, size = 0;
};
using ComponentTable = std::function<std::optional<ComponentPlace>(unsigned i)>;
ComponentTable this_cpu_components();

// Whether XSAVE in the standard format, with `xstate_bv` as the saved
// XSTATE_BV, writes the byte at `offset` of the area (the kernel's own
// software-reserved bytes and the header count as written).
bool xsave_writes(uint64_t offset, uint64_t xstate_bv, const ComponentTable& components);

// The same search as xsave_area_explaining, with the component layout given
// (tests pass their own).
std::optional<XsaveArea> xsave_area_explaining(uint64_t addr, const ImageReader& live, const ImageReader& recorded,
                                               const ComponentTable& components);

}  // namespace slsdbg::replay
