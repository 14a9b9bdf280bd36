// The XSAVE area of a core note in the layout GDB expects. GDB sizes
// .reg-xstate from XCR0 (bytes 464..471) and places each component at
// Intel's standard offsets (PKRU at 2688); other CPUs (AMD without AVX-512:
// PKRU at 2432) lay the area out by CPUID leaf 0xD, so the kernel's area is
// re-laid component by component, or GDB warns ".reg-xstate too small".
#pragma once

#include <cstdint>
#include <vector>

namespace slsdbg::dump {

// `xsave` as PTRACE_GETREGSET NT_X86_XSTATE returned it on this CPU.
std::vector<uint8_t> xsave_for_gdb(const std::vector<uint8_t>& xsave);

}  // namespace slsdbg::dump
