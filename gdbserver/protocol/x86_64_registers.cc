#include "gdbserver/protocol/x86_64_registers.h"

#include <array>
#include <cstring>
#include <string>

namespace slsdbg::gdbserver {
namespace {

constexpr std::string_view kCore = "org.gnu.gdb.i386.core";
constexpr std::string_view kSse = "org.gnu.gdb.i386.sse";
constexpr std::string_view kLinux = "org.gnu.gdb.i386.linux";
constexpr std::string_view kSegments = "org.gnu.gdb.i386.segments";
constexpr std::string_view kAvx = "org.gnu.gdb.i386.avx";

using A = RegisterArea;
using C = RegisterConversion;

// Offsets of struct user_regs_struct (x86-64): r15 r14 r13 r12 rbp rbx r11 r10
// r9 r8 rax rcx rdx rsi rdi orig_rax rip cs eflags rsp ss fs_base gs_base ds es fs gs.
constexpr uint32_t kUser_r15 = 0, kUser_r14 = 8, kUser_r13 = 16, kUser_r12 = 24, kUser_rbp = 32,
                   kUser_rbx = 40, kUser_r11 = 48, kUser_r10 = 56, kUser_r9 = 64, kUser_r8 = 72,
                   kUser_rax = 80, kUser_rcx = 88, kUser_rdx = 96, kUser_rsi = 104, kUser_rdi = 112,
                   kUser_orig_rax = 120, kUser_rip = 128, kUser_cs = 136, kUser_eflags = 144,
                   kUser_rsp = 152, kUser_ss = 160, kUser_fs_base = 168, kUser_gs_base = 176,
                   kUser_ds = 184, kUser_es = 192, kUser_fs = 200, kUser_gs = 208;

constexpr RegisterDesc gpr(int n, std::string_view name, std::string_view type, int dwarf, std::string_view generic,
                           uint32_t off) {
  return {n, name, 8, type, "general", kCore, dwarf, generic, A::UserRegs, off, 8, C::ZeroExtend};
}
constexpr RegisterDesc seg(int n, std::string_view name, int dwarf, uint32_t off) {
  return {n, name, 4, "int32", "general", kCore, dwarf, "", A::UserRegs, off, 8, C::ZeroExtend};
}
constexpr RegisterDesc x87ctl(int n, std::string_view name, int dwarf, uint32_t off, uint32_t width,
                              C conv = C::ZeroExtend) {
  return {n, name, 4, "int", "float", kCore, dwarf, "", A::Fpu, off, width, conv};
}

constexpr std::array<RegisterDesc, x86_64::kRegisterCount> kTable = {{
    gpr(0, "rax", "int64", 0, "", kUser_rax),
    gpr(1, "rbx", "int64", 3, "", kUser_rbx),
    gpr(2, "rcx", "int64", 2, "arg4", kUser_rcx),
    gpr(3, "rdx", "int64", 1, "arg3", kUser_rdx),
    gpr(4, "rsi", "int64", 4, "arg2", kUser_rsi),
    gpr(5, "rdi", "int64", 5, "arg1", kUser_rdi),
    gpr(6, "rbp", "data_ptr", 6, "fp", kUser_rbp),
    gpr(7, "rsp", "data_ptr", 7, "sp", kUser_rsp),
    gpr(8, "r8", "int64", 8, "arg5", kUser_r8),
    gpr(9, "r9", "int64", 9, "arg6", kUser_r9),
    gpr(10, "r10", "int64", 10, "", kUser_r10),
    gpr(11, "r11", "int64", 11, "", kUser_r11),
    gpr(12, "r12", "int64", 12, "", kUser_r12),
    gpr(13, "r13", "int64", 13, "", kUser_r13),
    gpr(14, "r14", "int64", 14, "", kUser_r14),
    gpr(15, "r15", "int64", 15, "", kUser_r15),
    gpr(16, "rip", "code_ptr", 16, "pc", kUser_rip),
    {17, "eflags", 4, "i386_eflags", "general", kCore, 49, "flags", A::UserRegs, kUser_eflags, 8, C::ZeroExtend},
    seg(18, "cs", 51, kUser_cs),
    seg(19, "ss", 52, kUser_ss),
    seg(20, "ds", 53, kUser_ds),
    seg(21, "es", 50, kUser_es),
    seg(22, "fs", 54, kUser_fs),
    seg(23, "gs", 55, kUser_gs),
    {24, "st0", 10, "i387_ext", "float", kCore, 33, "", A::Fpu, 32 + 16 * 0, 10, C::ZeroExtend},
    {25, "st1", 10, "i387_ext", "float", kCore, 34, "", A::Fpu, 32 + 16 * 1, 10, C::ZeroExtend},
    {26, "st2", 10, "i387_ext", "float", kCore, 35, "", A::Fpu, 32 + 16 * 2, 10, C::ZeroExtend},
    {27, "st3", 10, "i387_ext", "float", kCore, 36, "", A::Fpu, 32 + 16 * 3, 10, C::ZeroExtend},
    {28, "st4", 10, "i387_ext", "float", kCore, 37, "", A::Fpu, 32 + 16 * 4, 10, C::ZeroExtend},
    {29, "st5", 10, "i387_ext", "float", kCore, 38, "", A::Fpu, 32 + 16 * 5, 10, C::ZeroExtend},
    {30, "st6", 10, "i387_ext", "float", kCore, 39, "", A::Fpu, 32 + 16 * 6, 10, C::ZeroExtend},
    {31, "st7", 10, "i387_ext", "float", kCore, 40, "", A::Fpu, 32 + 16 * 7, 10, C::ZeroExtend},
    // FXSAVE header: FCW@0(2) FSW@2(2) FTW@4(1, abridged) FOP@6(2) FIP@8(4) FCS@12(2) FDP@16(4) FDS@20(2) MXCSR@24(4)
    x87ctl(32, "fctrl", 65, 0, 2),
    x87ctl(33, "fstat", 66, 2, 2),
    x87ctl(34, "ftag", -1, 4, 1, C::AbridgedTagWord),
    x87ctl(35, "fiseg", -1, 12, 2),
    x87ctl(36, "fioff", -1, 8, 4),
    x87ctl(37, "foseg", -1, 20, 2),
    x87ctl(38, "fooff", -1, 16, 4),
    x87ctl(39, "fop", -1, 6, 2),
    {40, "xmm0", 16, "vec128", "sse", kSse, 17, "", A::Fpu, 160 + 16 * 0, 16, C::ZeroExtend},
    {41, "xmm1", 16, "vec128", "sse", kSse, 18, "", A::Fpu, 160 + 16 * 1, 16, C::ZeroExtend},
    {42, "xmm2", 16, "vec128", "sse", kSse, 19, "", A::Fpu, 160 + 16 * 2, 16, C::ZeroExtend},
    {43, "xmm3", 16, "vec128", "sse", kSse, 20, "", A::Fpu, 160 + 16 * 3, 16, C::ZeroExtend},
    {44, "xmm4", 16, "vec128", "sse", kSse, 21, "", A::Fpu, 160 + 16 * 4, 16, C::ZeroExtend},
    {45, "xmm5", 16, "vec128", "sse", kSse, 22, "", A::Fpu, 160 + 16 * 5, 16, C::ZeroExtend},
    {46, "xmm6", 16, "vec128", "sse", kSse, 23, "", A::Fpu, 160 + 16 * 6, 16, C::ZeroExtend},
    {47, "xmm7", 16, "vec128", "sse", kSse, 24, "", A::Fpu, 160 + 16 * 7, 16, C::ZeroExtend},
    {48, "xmm8", 16, "vec128", "sse", kSse, 25, "", A::Fpu, 160 + 16 * 8, 16, C::ZeroExtend},
    {49, "xmm9", 16, "vec128", "sse", kSse, 26, "", A::Fpu, 160 + 16 * 9, 16, C::ZeroExtend},
    {50, "xmm10", 16, "vec128", "sse", kSse, 27, "", A::Fpu, 160 + 16 * 10, 16, C::ZeroExtend},
    {51, "xmm11", 16, "vec128", "sse", kSse, 28, "", A::Fpu, 160 + 16 * 11, 16, C::ZeroExtend},
    {52, "xmm12", 16, "vec128", "sse", kSse, 29, "", A::Fpu, 160 + 16 * 12, 16, C::ZeroExtend},
    {53, "xmm13", 16, "vec128", "sse", kSse, 30, "", A::Fpu, 160 + 16 * 13, 16, C::ZeroExtend},
    {54, "xmm14", 16, "vec128", "sse", kSse, 31, "", A::Fpu, 160 + 16 * 14, 16, C::ZeroExtend},
    {55, "xmm15", 16, "vec128", "sse", kSse, 32, "", A::Fpu, 160 + 16 * 15, 16, C::ZeroExtend},
    {56, "mxcsr", 4, "i386_mxcsr", "vector", kSse, 64, "", A::Fpu, 24, 4, C::ZeroExtend},
    {57, "orig_rax", 8, "int", "system", kLinux, -1, "", A::UserRegs, kUser_orig_rax, 8, C::ZeroExtend},
    {58, "fs_base", 8, "int", "system", kSegments, 58, "", A::UserRegs, kUser_fs_base, 8, C::ZeroExtend},
    {59, "gs_base", 8, "int", "system", kSegments, 59, "", A::UserRegs, kUser_gs_base, 8, C::ZeroExtend},
    {60, "ymm0h", 16, "uint128", "vector", kAvx, -1, "", A::XsaveYmmHigh, 16 * 0, 16, C::ZeroExtend},
    {61, "ymm1h", 16, "uint128", "vector", kAvx, -1, "", A::XsaveYmmHigh, 16 * 1, 16, C::ZeroExtend},
    {62, "ymm2h", 16, "uint128", "vector", kAvx, -1, "", A::XsaveYmmHigh, 16 * 2, 16, C::ZeroExtend},
    {63, "ymm3h", 16, "uint128", "vector", kAvx, -1, "", A::XsaveYmmHigh, 16 * 3, 16, C::ZeroExtend},
    {64, "ymm4h", 16, "uint128", "vector", kAvx, -1, "", A::XsaveYmmHigh, 16 * 4, 16, C::ZeroExtend},
    {65, "ymm5h", 16, "uint128", "vector", kAvx, -1, "", A::XsaveYmmHigh, 16 * 5, 16, C::ZeroExtend},
    {66, "ymm6h", 16, "uint128", "vector", kAvx, -1, "", A::XsaveYmmHigh, 16 * 6, 16, C::ZeroExtend},
    {67, "ymm7h", 16, "uint128", "vector", kAvx, -1, "", A::XsaveYmmHigh, 16 * 7, 16, C::ZeroExtend},
    {68, "ymm8h", 16, "uint128", "vector", kAvx, -1, "", A::XsaveYmmHigh, 16 * 8, 16, C::ZeroExtend},
    {69, "ymm9h", 16, "uint128", "vector", kAvx, -1, "", A::XsaveYmmHigh, 16 * 9, 16, C::ZeroExtend},
    {70, "ymm10h", 16, "uint128", "vector", kAvx, -1, "", A::XsaveYmmHigh, 16 * 10, 16, C::ZeroExtend},
    {71, "ymm11h", 16, "uint128", "vector", kAvx, -1, "", A::XsaveYmmHigh, 16 * 11, 16, C::ZeroExtend},
    {72, "ymm12h", 16, "uint128", "vector", kAvx, -1, "", A::XsaveYmmHigh, 16 * 12, 16, C::ZeroExtend},
    {73, "ymm13h", 16, "uint128", "vector", kAvx, -1, "", A::XsaveYmmHigh, 16 * 13, 16, C::ZeroExtend},
    {74, "ymm14h", 16, "uint128", "vector", kAvx, -1, "", A::XsaveYmmHigh, 16 * 14, 16, C::ZeroExtend},
    {75, "ymm15h", 16, "uint128", "vector", kAvx, -1, "", A::XsaveYmmHigh, 16 * 15, 16, C::ZeroExtend},
}};

constexpr uint64_t kXstateAvxBit = 1u << 2;

uint16_t load16(std::span<const uint8_t> s, size_t off) {
  uint16_t v;
  std::memcpy(&v, s.data() + off, 2);
  return v;
}

uint64_t load_xstate_bv(std::span<const uint8_t> fpu) {
  uint64_t v;
  std::memcpy(&v, fpu.data() + x86_64::kXsaveHeaderOffset, 8);
  return v;
}

// The x87 tag of one physical register from its 80-bit contents:
// 0 valid, 1 zero, 2 special (NaN, infinity, denormal, unnormal).
uint16_t classify_x87(const uint8_t* value80) {
  uint64_t mantissa;
  std::memcpy(&mantissa, value80, 8);
  uint16_t exponent = load16(std::span<const uint8_t>(value80, 10), 8) & 0x7fff;
  if (exponent == 0x7fff) return 2;
  if (exponent == 0) return mantissa == 0 ? 1 : 2;
  return (mantissa >> 63) ? 0 : 2;
}

// FXSAVE keeps bit i set when physical register i is not empty; the full tag
// word has two bits per physical register. Registers sit in the save area in
// stack order, so physical register i is st((i - top) mod 8).
uint16_t full_tag_word(std::span<const uint8_t> fpu) {
  uint8_t abridged = fpu[4];
  unsigned top = (load16(fpu, 2) >> 11) & 7;
  uint16_t tag = 0;
  for (unsigned phys = 0; phys < 8; ++phys) {
    uint16_t t = 3;  // empty
    if (abridged & (1u << phys)) {
      unsigned st = (phys - top) & 7;
      t = classify_x87(fpu.data() + 32 + 16 * st);
    }
    tag |= static_cast<uint16_t>(t << (2 * phys));
  }
  return tag;
}

uint8_t abridged_tag(uint16_t full) {
  uint8_t out = 0;
  for (unsigned phys = 0; phys < 8; ++phys) {
    if (((full >> (2 * phys)) & 3) != 3) out |= static_cast<uint8_t>(1u << phys);
  }
  return out;
}

Error area_too_small(const RegisterDesc& r, std::string_view area) {
  return Error::msg("register " + std::string(r.name) + ": the " + std::string(area) + " area is too small");
}

}  // namespace

std::span<const RegisterDesc> x86_64_registers() { return kTable; }

const RegisterDesc* find_register(int number) {
  if (number < 0 || number >= x86_64::kRegisterCount) return nullptr;
  return &kTable[number];
}

const RegisterDesc* find_register(std::string_view name) {
  for (const auto& r : kTable) {
    if (r.name == name) return &r;
  }
  return nullptr;
}

size_t x86_64_register_file_size() {
  size_t total = 0;
  for (const auto& r : kTable) total += r.size;
  return total;
}

Status read_register_from_areas(const RegisterAreasView& areas, int number, std::span<uint8_t> out) {
  const RegisterDesc* r = find_register(number);
  if (!r) return Error::msg("no register number " + std::to_string(number));
  if (out.size() != r->size) return Error::msg("register " + std::string(r->name) + ": wrong output size");
  std::memset(out.data(), 0, out.size());
  switch (r->area) {
    case RegisterArea::UserRegs:
      if (areas.user_regs.size() < r->area_offset + r->area_width) return area_too_small(*r, "user_regs");
      std::memcpy(out.data(), areas.user_regs.data() + r->area_offset, std::min<size_t>(r->size, r->area_width));
      return ok_status();
    case RegisterArea::Fpu:
      if (areas.fpu.size() < x86_64::kFxsaveSize) return area_too_small(*r, "FXSAVE");
      if (r->conversion == RegisterConversion::AbridgedTagWord) {
        uint16_t tag = full_tag_word(areas.fpu);
        std::memcpy(out.data(), &tag, 2);
      } else {
        std::memcpy(out.data(), areas.fpu.data() + r->area_offset, std::min<size_t>(r->size, r->area_width));
        if (number == x86_64::kFop) out[1] &= 0x07;  // the opcode is 11 bits
      }
      return ok_status();
    case RegisterArea::XsaveYmmHigh:
      // An FXSAVE-only buffer, or AVX state in its initial configuration: zeros.
      if (areas.fpu.size() >= x86_64::kXsaveAvxSize && (load_xstate_bv(areas.fpu) & kXstateAvxBit)) {
        std::memcpy(out.data(), areas.fpu.data() + x86_64::kXsaveYmmOffset + r->area_offset, 16);
      }
      return ok_status();
  }
  return Error::msg("register " + std::string(r->name) + ": unknown area");
}

Status write_register_to_areas(const RegisterAreas& areas, int number, std::span<const uint8_t> value) {
  const RegisterDesc* r = find_register(number);
  if (!r) return Error::msg("no register number " + std::to_string(number));
  if (value.size() != r->size) return Error::msg("register " + std::string(r->name) + ": wrong value size");
  switch (r->area) {
    case RegisterArea::UserRegs: {
      if (areas.user_regs.size() < r->area_offset + r->area_width) return area_too_small(*r, "user_regs");
      uint8_t* slot = areas.user_regs.data() + r->area_offset;
      std::memset(slot, 0, r->area_width);
      std::memcpy(slot, value.data(), std::min<size_t>(r->size, r->area_width));
      return ok_status();
    }
    case RegisterArea::Fpu: {
      if (areas.fpu.size() < x86_64::kFxsaveSize) return area_too_small(*r, "FXSAVE");
      if (r->conversion == RegisterConversion::AbridgedTagWord) {
        uint16_t full;
        std::memcpy(&full, value.data(), 2);
        areas.fpu[4] = abridged_tag(full);
      } else {
        std::memcpy(areas.fpu.data() + r->area_offset, value.data(), std::min<size_t>(r->size, r->area_width));
      }
      return ok_status();
    }
    case RegisterArea::XsaveYmmHigh: {
      if (areas.fpu.size() < x86_64::kXsaveAvxSize) return area_too_small(*r, "XSAVE");
      uint64_t bv = load_xstate_bv(areas.fpu);
      if (!(bv & kXstateAvxBit)) {
        // Leaving the init state: the other upper halves are zero, not stale bytes.
        std::memset(areas.fpu.data() + x86_64::kXsaveYmmOffset, 0, 16 * 16);
        bv |= kXstateAvxBit;
        std::memcpy(areas.fpu.data() + x86_64::kXsaveHeaderOffset, &bv, 8);
      }
      std::memcpy(areas.fpu.data() + x86_64::kXsaveYmmOffset + r->area_offset, value.data(), 16);
      return ok_status();
    }
  }
  return Error::msg("register " + std::string(r->name) + ": unknown area");
}

}  // namespace slsdbg::gdbserver
