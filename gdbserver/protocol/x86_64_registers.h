// The x86-64 register file as the remote protocol numbers it, and where each
// register lives in the kernel's layouts, as plain data: struct
// user_regs_struct (PTRACE_GETREGS) and the FXSAVE legacy region / XSAVE area
// (PTRACE_GETFPREGS, PTRACE_GETREGSET NT_X86_XSTATE). An engine reads those
// structures however it likes and calls read_register_from_areas(); nothing
// here touches a process.
//
//   number  registers            size  lives in
//   0-15    rax..r15             8     user_regs_struct (its own order)
//   16      rip                  8     user_regs_struct
//   17-23   eflags cs ss ds es fs gs  4  user_regs_struct (8-byte slots, low half)
//   24-31   st0-st7              10    FXSAVE +32, 16-byte slots, stack order
//   32-39   fctrl fstat ftag fiseg fioff foseg fooff fop  4  FXSAVE header fields
//   40-55   xmm0-xmm15           16    FXSAVE +160
//   56      mxcsr                4     FXSAVE +24
//   57      orig_rax             8     user_regs_struct
//   58-59   fs_base gs_base      8     user_regs_struct
//   60-75   ymm0h-ymm15h         16    XSAVE +576 (YMM_Hi128), zero when XSTATE_BV bit 2 is clear
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "common/result.h"

namespace slsdbg::gdbserver {

enum class RegisterArea { UserRegs, Fpu, XsaveYmmHigh };

// How the wire value differs from the bytes in the area.
enum class RegisterConversion {
  ZeroExtend,       // the area holds the low area_width bytes; the rest is zero
  AbridgedTagWord,  // FXSAVE keeps one bit per register; GDB wants the full x87 tag word
};

struct RegisterDesc {
  int number;
  std::string_view name;
  uint32_t size;             // bytes on the wire (bitsize / 8 in target.xml)
  std::string_view type;     // target.xml type
  std::string_view group;    // target.xml group
  std::string_view feature;  // target.xml feature the register belongs to
  int dwarf;                 // DWARF register number, -1 when none
  std::string_view generic;  // LLDB's generic role: pc, sp, fp, flags, or empty
  RegisterArea area;
  uint32_t area_offset;
  uint32_t area_width;
  RegisterConversion conversion;
};

namespace x86_64 {
inline constexpr int kRax = 0, kRbx = 1, kRcx = 2, kRdx = 3, kRsi = 4, kRdi = 5, kRbp = 6, kRsp = 7;
inline constexpr int kR8 = 8, kR15 = 15, kRip = 16, kEflags = 17, kCs = 18, kGs = 23;
inline constexpr int kSt0 = 24, kFctrl = 32, kFstat = 33, kFtag = 34, kFop = 39;
inline constexpr int kXmm0 = 40, kMxcsr = 56, kOrigRax = 57, kFsBase = 58, kGsBase = 59, kYmm0h = 60;
inline constexpr int kRegisterCount = 76;

inline constexpr size_t kUserRegsSize = 216;       // sizeof(struct user_regs_struct)
inline constexpr size_t kFxsaveSize = 512;         // FXSAVE area / XSAVE legacy region
inline constexpr size_t kXsaveHeaderOffset = 512;  // XSTATE_BV lives here
inline constexpr size_t kXsaveYmmOffset = 576;     // YMM_Hi128 component (standard format)
inline constexpr size_t kXsaveAvxSize = kXsaveYmmOffset + 16 * 16;
}  // namespace x86_64

// All registers in number order; x86_64_registers()[n].number == n.
std::span<const RegisterDesc> x86_64_registers();
// nullptr for a number outside the table.
const RegisterDesc* find_register(int number);
const RegisterDesc* find_register(std::string_view name);
// Bytes of a full 'g' packet worth of registers.
size_t x86_64_register_file_size();

// The kernel structures an engine has for one thread. `fpu` is either a
// 512-byte FXSAVE area or a full XSAVE area (whose first 512 bytes are the
// same layout); the AVX upper halves read as zero when it is only FXSAVE.
struct RegisterAreasView {
  std::span<const uint8_t> user_regs;
  std::span<const uint8_t> fpu;
};
struct RegisterAreas {
  std::span<uint8_t> user_regs;
  std::span<uint8_t> fpu;
};

// Fills `out` (exactly the register's size) from the areas.
Status read_register_from_areas(const RegisterAreasView& areas, int number, std::span<uint8_t> out);
// Stores a wire value into the areas (sets the AVX bit of XSTATE_BV for ymm).
Status write_register_to_areas(const RegisterAreas& areas, int number, std::span<const uint8_t> value);

}  // namespace slsdbg::gdbserver
