// Checks the x86-64 register table against the kernel's own structures
// (struct user_regs_struct and user_fpregs_struct from <sys/user.h>): every
// register reads from the right place, the x87 tag word converts both ways,
// the AVX upper halves follow XSTATE_BV, and target.xml lists every register
// with its number and size.
#include <gtest/gtest.h>
#include <sys/user.h>

#include <cstddef>
#include <cstring>
#include <vector>

#include "gdbserver/protocol/target_description.h"
#include "gdbserver/protocol/x86_64_registers.h"

namespace slsdbg::gdbserver {
namespace {

uint64_t read_u64(const RegisterAreasView& areas, int number) {
  std::vector<uint8_t> out(find_register(number)->size);
  EXPECT_TRUE(read_register_from_areas(areas, number, out).ok());
  uint64_t v = 0;
  std::memcpy(&v, out.data(), std::min<size_t>(8, out.size()));
  return v;
}

RegisterAreasView view(const user_regs_struct& regs, std::span<const uint8_t> fpu) {
  return {std::span(reinterpret_cast<const uint8_t*>(&regs), sizeof regs), fpu};
}

TEST(RegisterTable, NumbersSizesAndNames) {
  auto regs = x86_64_registers();
  ASSERT_EQ(regs.size(), static_cast<size_t>(x86_64::kRegisterCount));
  for (size_t i = 0; i < regs.size(); ++i) EXPECT_EQ(regs[i].number, static_cast<int>(i));
  EXPECT_EQ(x86_64_register_file_size(), 816u);
  const char* expected[] = {"rax", "rbx", "rcx", "rdx", "rsi", "rdi", "rbp", "rsp", "r8", "r9", "r10", "r11", "r12",
                            "r13", "r14", "r15", "rip", "eflags", "cs", "ss", "ds", "es", "fs", "gs"};
  for (int i = 0; i < 24; ++i) EXPECT_EQ(regs[i].name, expected[i]);
  EXPECT_EQ(find_register("st7")->number, 31);
  EXPECT_EQ(find_register("fop")->number, 39);
  EXPECT_EQ(find_register("xmm15")->number, 55);
  EXPECT_EQ(find_register("mxcsr")->number, 56);
  EXPECT_EQ(find_register("orig_rax")->number, 57);
  EXPECT_EQ(find_register("fs_base")->number, 58);
  EXPECT_EQ(find_register("gs_base")->number, 59);
  EXPECT_EQ(find_register("ymm15h")->number, 75);
  EXPECT_EQ(find_register("st0")->size, 10u);
  EXPECT_EQ(find_register("eflags")->size, 4u);
  EXPECT_EQ(find_register("nope"), nullptr);
  EXPECT_EQ(find_register(76), nullptr);
  EXPECT_EQ(find_register(-1), nullptr);
}

TEST(RegisterTable, UserRegsOffsetsMatchTheKernelStruct) {
  user_regs_struct regs{};
  regs.rax = 1; regs.rbx = 2; regs.rcx = 3; regs.rdx = 4; regs.rsi = 5; regs.rdi = 6; regs.rbp = 7;
  regs.rsp = 8; regs.r8 = 9; regs.r9 = 10; regs.r10 = 11; regs.r11 = 12; regs.r12 = 13; regs.r13 = 14;
  regs.r14 = 15; regs.r15 = 16; regs.rip = 17; regs.eflags = 18; regs.cs = 19; regs.ss = 20; regs.ds = 21;
  regs.es = 22; regs.fs = 23; regs.gs = 24; regs.orig_rax = 25; regs.fs_base = 26; regs.gs_base = 27;
  std::vector<uint8_t> fpu(x86_64::kFxsaveSize);
  auto v = view(regs, fpu);
  for (int n = 0; n < 24; ++n) EXPECT_EQ(read_u64(v, n), static_cast<uint64_t>(n + 1)) << n;
  EXPECT_EQ(read_u64(v, x86_64::kOrigRax), 25u);
  EXPECT_EQ(read_u64(v, x86_64::kFsBase), 26u);
  EXPECT_EQ(read_u64(v, x86_64::kGsBase), 27u);
}

TEST(RegisterTable, WritesLandInTheKernelStruct) {
  user_regs_struct regs{};
  regs.eflags = 0xffffffffffffffff;
  std::vector<uint8_t> fpu(x86_64::kFxsaveSize);
  RegisterAreas areas{std::span(reinterpret_cast<uint8_t*>(&regs), sizeof regs), fpu};
  uint64_t rip = 0x401234;
  ASSERT_TRUE(write_register_to_areas(areas, x86_64::kRip, std::span(reinterpret_cast<uint8_t*>(&rip), 8)).ok());
  EXPECT_EQ(regs.rip, 0x401234u);
  uint32_t flags = 0x246;
  ASSERT_TRUE(write_register_to_areas(areas, x86_64::kEflags, std::span(reinterpret_cast<uint8_t*>(&flags), 4)).ok());
  EXPECT_EQ(regs.eflags, 0x246u);  // zero-extended into the 8-byte slot
  EXPECT_FALSE(write_register_to_areas(areas, x86_64::kRip, std::span(reinterpret_cast<uint8_t*>(&flags), 4)).ok());
}

TEST(RegisterTable, FxsaveFieldsMatchTheKernelStruct) {
  user_regs_struct regs{};
  user_fpregs_struct fp{};
  fp.cwd = 0x37f;
  fp.swd = 0x3800;  // top = 7
  fp.ftw = 0x80;    // physical register 7 in use
  fp.fop = 0xffff;  // only 11 bits are the opcode
  fp.rip = 0x0000123400005678;
  fp.rdp = 0x9abc;
  fp.mxcsr = 0x1f80;
  // st0 = 1.0 in 80-bit extended precision: mantissa 0x8000000000000000, exponent 0x3fff.
  uint8_t one[10] = {0, 0, 0, 0, 0, 0, 0, 0x80, 0xff, 0x3f};
  std::memcpy(fp.st_space, one, 10);
  for (int i = 0; i < 16; ++i) reinterpret_cast<uint8_t*>(fp.xmm_space)[16 * 3 + i] = static_cast<uint8_t>(i);
  std::span<const uint8_t> fpu(reinterpret_cast<const uint8_t*>(&fp), sizeof fp);
  auto v = view(regs, fpu);
  EXPECT_EQ(read_u64(v, x86_64::kFctrl), 0x37fu);
  EXPECT_EQ(read_u64(v, x86_64::kFstat), 0x3800u);
  // Physical register 7 holds st0 = 1.0 (valid, 00); the other seven are empty (11).
  EXPECT_EQ(read_u64(v, x86_64::kFtag), 0x3fffu);
  EXPECT_EQ(read_u64(v, x86_64::kFop), 0x7ffu);
  EXPECT_EQ(read_u64(v, find_register("fioff")->number), 0x5678u);
  EXPECT_EQ(read_u64(v, find_register("fiseg")->number), 0x1234u);
  EXPECT_EQ(read_u64(v, find_register("fooff")->number), 0x9abcu);
  EXPECT_EQ(read_u64(v, x86_64::kMxcsr), 0x1f80u);
  std::vector<uint8_t> st0(10);
  ASSERT_TRUE(read_register_from_areas(v, x86_64::kSt0, st0).ok());
  EXPECT_EQ(0, std::memcmp(st0.data(), one, 10));
  std::vector<uint8_t> xmm3(16);
  ASSERT_TRUE(read_register_from_areas(v, x86_64::kXmm0 + 3, xmm3).ok());
  EXPECT_EQ(xmm3[15], 15);

  // Writing the full tag word back stores the abridged form.
  RegisterAreas w{std::span(reinterpret_cast<uint8_t*>(&regs), sizeof regs),
                  std::span(reinterpret_cast<uint8_t*>(&fp), sizeof fp)};
  uint32_t tag = 0xfff0;  // physical 0 and 1 in use
  ASSERT_TRUE(write_register_to_areas(w, x86_64::kFtag, std::span(reinterpret_cast<uint8_t*>(&tag), 4)).ok());
  EXPECT_EQ(fp.ftw, 0x03);
}

TEST(RegisterTable, AvxUpperHalvesFollowXstateBv) {
  user_regs_struct regs{};
  std::vector<uint8_t> xsave(x86_64::kXsaveAvxSize, 0xee);  // stale bytes
  std::memset(xsave.data() + x86_64::kXsaveHeaderOffset, 0, 64);
  std::vector<uint8_t> out(16);
  // XSTATE_BV bit 2 clear: the component is in its initial state, all zero.
  ASSERT_TRUE(read_register_from_areas(view(regs, xsave), x86_64::kYmm0h + 1, out).ok());
  EXPECT_EQ(out, std::vector<uint8_t>(16, 0));
  // Writing one upper half sets the bit and clears the others.
  std::vector<uint8_t> value(16, 0x42);
  RegisterAreas w{std::span(reinterpret_cast<uint8_t*>(&regs), sizeof regs), xsave};
  ASSERT_TRUE(write_register_to_areas(w, x86_64::kYmm0h + 1, value).ok());
  EXPECT_EQ(xsave[x86_64::kXsaveHeaderOffset] & 4, 4);
  ASSERT_TRUE(read_register_from_areas(view(regs, xsave), x86_64::kYmm0h + 1, out).ok());
  EXPECT_EQ(out, value);
  ASSERT_TRUE(read_register_from_areas(view(regs, xsave), x86_64::kYmm0h, out).ok());
  EXPECT_EQ(out, std::vector<uint8_t>(16, 0));
  // An FXSAVE-only buffer reads zeros and refuses writes.
  std::vector<uint8_t> fx(x86_64::kFxsaveSize);
  ASSERT_TRUE(read_register_from_areas(view(regs, fx), x86_64::kYmm0h, out).ok());
  RegisterAreas wf{w.user_regs, fx};
  EXPECT_FALSE(write_register_to_areas(wf, x86_64::kYmm0h, value).ok());
}

TEST(RegisterTable, ShortAreasAreErrorsNotOverreads) {
  std::vector<uint8_t> tiny(8);
  std::vector<uint8_t> out(8);
  EXPECT_FALSE(read_register_from_areas({tiny, tiny}, x86_64::kRip, out).ok());
  std::vector<uint8_t> out16(16);
  EXPECT_FALSE(read_register_from_areas({tiny, tiny}, x86_64::kXmm0, out16).ok());
  EXPECT_FALSE(read_register_from_areas({tiny, tiny}, 99, out).ok());
}

TEST(TargetDescription, ListsEveryRegisterWithNumberAndSize) {
  const std::string& xml = x86_64_target_xml();
  EXPECT_NE(xml.find("<architecture>i386:x86-64</architecture>"), std::string::npos);
  for (const auto& r : x86_64_registers()) {
    std::string needle = "<reg name=\"" + std::string(r.name) + "\" bitsize=\"" + std::to_string(r.size * 8) +
                         "\" type=\"" + std::string(r.type) + "\"";
    EXPECT_NE(xml.find(needle), std::string::npos) << r.name;
    EXPECT_NE(xml.find("regnum=\"" + std::to_string(r.number) + "\""), std::string::npos) << r.name;
  }
  for (const char* f : {"org.gnu.gdb.i386.core", "org.gnu.gdb.i386.sse", "org.gnu.gdb.i386.linux",
                        "org.gnu.gdb.i386.segments", "org.gnu.gdb.i386.avx"}) {
    EXPECT_NE(xml.find("<feature name=\"" + std::string(f) + "\">"), std::string::npos) << f;
  }
  size_t opened = 0, closed = 0;
  for (size_t at = 0; (at = xml.find("<feature ", at)) != std::string::npos; ++at) ++opened;
  for (size_t at = 0; (at = xml.find("</feature>", at)) != std::string::npos; ++at) ++closed;
  EXPECT_EQ(opened, 5u);
  EXPECT_EQ(closed, 5u);
  EXPECT_EQ(xml.find_first_of("#$*}"), std::string::npos);  // travels unescaped
}

}  // namespace
}  // namespace slsdbg::gdbserver
