// Checks the trampoline of the patched breakpoint: the displaced instructions
// are whole, relative branches and rip-relative operands still reach their
// targets from the trampoline, the trampoline jumps back after them, and code
// that cannot be moved (a call, a jump before 5 bytes) is refused.
#include "engine/replay/patched_breakpoint.h"

#include <gtest/gtest.h>
#include <signal.h>

#include <cstring>
#include <vector>

#include "engine/replay/code_pages_test.h"
#include "engine/replay/stub_flags_test.h"

namespace slsdbg::replay {
namespace {

constexpr uint64_t kPc = 0x401000;
constexpr uint64_t kTramp = 0x500000;

user_regs_struct at_pc() {
  user_regs_struct r{};
  r.rip = kPc;
  r.rax = 0x1111;
  r.rsp = 0x7ffc0000;
  return r;
}

std::vector<uint8_t> padded(std::vector<uint8_t> code) {
  code.resize(32, 0x90);
  return code;
}

// Addresses that a rel32 jump/jcc (opcode bytes `op`) in the trampoline reaches.
std::vector<uint64_t> rel32_targets(const Trampoline& t, std::vector<uint8_t> op) {
  std::vector<uint64_t> out;
  for (size_t i = 0; i + op.size() + 4 <= t.bytes.size(); i++) {
    if (std::memcmp(&t.bytes[i], op.data(), op.size()) != 0) continue;
    int32_t rel;
    std::memcpy(&rel, &t.bytes[i + op.size()], 4);
    out.push_back(kTramp + i + op.size() + 4 + static_cast<int64_t>(rel));
  }
  return out;
}

bool contains(const std::vector<uint64_t>& v, uint64_t x) {
  for (uint64_t y : v)
    if (y == x) return true;
  return false;
}

TEST(PatchedBreakpoint, MovesAShortConditionalBranchAsRel32) {
  // jne -16; add rax, 1
  auto code = padded({0x75, 0xf0, 0x48, 0x83, 0xc0, 0x01});
  auto t = build_trampoline(code, at_pc(), PatchCompare::All, kTramp);
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_EQ(6u, t->displaced);
  EXPECT_TRUE(contains(rel32_targets(*t, {0x0f, 0x85}), kPc + 2 - 16));
  EXPECT_TRUE(contains(rel32_targets(*t, {0xe9}), kPc + 6));  // back after the displaced code
  ASSERT_TRUE(patch_length(code, kPc).ok());
  EXPECT_EQ(6u, *patch_length(code, kPc));
}

TEST(PatchedBreakpoint, RipRelativeOperandKeepsItsTarget) {
  // mov rax, [rip + 0x100]
  auto code = padded({0x48, 0x8b, 0x05, 0x00, 0x01, 0x00, 0x00});
  auto t = build_trampoline(code, at_pc(), PatchCompare::All, kTramp);
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_EQ(7u, t->displaced);
  bool found = false;
  for (size_t i = 0; i + 7 <= t->bytes.size(); i++) {
    if (t->bytes[i] != 0x48 || t->bytes[i + 1] != 0x8b || t->bytes[i + 2] != 0x05) continue;
    int32_t disp;
    std::memcpy(&disp, &t->bytes[i + 3], 4);
    if (kTramp + i + 7 + static_cast<int64_t>(disp) == kPc + 7 + 0x100) found = true;
  }
  EXPECT_TRUE(found);
}

TEST(PatchedBreakpoint, RefusesCodeItCannotMove) {
  EXPECT_FALSE(build_trampoline(padded({0xff, 0xd0}), at_pc(), PatchCompare::All, kTramp).ok());  // call rax
  EXPECT_FALSE(build_trampoline(padded({0xeb, 0x10}), at_pc(), PatchCompare::All, kTramp).ok());  // jmp, then a branch target
  EXPECT_FALSE(build_trampoline(padded({0xc3}), at_pc(), PatchCompare::All, kTramp).ok());        // ret
  EXPECT_FALSE(build_trampoline(padded({0xe2, 0xfe}), at_pc(), PatchCompare::All, kTramp).ok());  // loop: no rel32 form
}

// A watch trap in the moved code names the program's pc: after the moved
// store, the next moved instruction's or, after the last, the site's end
// (at the jump back); the comparison names none.
TEST(PatchedBreakpoint, TrampolinePcsMapToTheProgramsPcs) {
  // jne -16 (re-encoded as rel32: 6 bytes); mov [rdi], rax; add rax, 1
  const std::vector<uint8_t> moved = {0x75, 0xf0, 0x48, 0x89, 0x07, 0x48, 0x83, 0xc0, 0x01};
  auto code = padded(moved);
  auto t = build_trampoline(code, at_pc(), PatchCompare::All, kTramp);
  ASSERT_TRUE(t.ok()) << t.error().message;
  ASSERT_EQ(5u, t->displaced);  // jne and mov
  const PatchSite site = PatchSite::at(kPc, t->displaced);
  auto at = [&](uint64_t rip) { return trampoline_program_pc(*t, code, site, kTramp, rip); };
  EXPECT_EQ(std::optional<uint64_t>(kPc), at(t->from_pc));
  EXPECT_EQ(0, std::memcmp(&t->bytes[t->from_pc - kTramp], "\x0f\x85", 2));
  EXPECT_EQ(std::optional<uint64_t>(kPc + 2), at(t->from_pc + 6));  // the store, after the moved jne
  EXPECT_EQ(0, std::memcmp(&t->bytes[t->from_pc + 6 - kTramp], &moved[2], 3));
  EXPECT_EQ(t->from_pc + 9, t->back);
  EXPECT_EQ(std::optional<uint64_t>(kPc + 5), at(t->back));  // after the store: the site's end
  EXPECT_EQ(0xe9, t->bytes[t->back - kTramp]);
  EXPECT_EQ(std::nullopt, at(t->from_pc + 1));  // inside an instruction
  EXPECT_EQ(std::nullopt, at(t->resume));       // the comparison's own code
  EXPECT_EQ(std::nullopt, at(t->check + 1));
}

TEST(PatchedBreakpoint, ComparesTheTargetRegisters) {
  auto t = build_trampoline(padded({0x48, 0x83, 0xc0, 0x01, 0x90}), at_pc(), PatchCompare::All, kTramp);
  ASSERT_TRUE(t.ok()) << t.error().message;
  // rax's value is in the data area, and the trampoline has an int3 before resume.
  uint64_t rax = 0;
  std::memcpy(&rax, &t->bytes[2048 + 8], 8);
  EXPECT_EQ(0x1111u, rax);
  ASSERT_GT(t->resume, kTramp);
  EXPECT_EQ(0xcc, t->bytes[t->resume - kTramp - 1]);
}

volatile sig_atomic_t g_traps = 0;
void on_trap(int) { g_traps = g_traps + 1; }

// Runs the trampoline in this process: visits that differ in rax (the quick
// test's first register), in rdx only (its second), or in neither but in
// rsp (the full comparison) all run the moved code with the flags, rax and
// rcx of the program, and none traps.
TEST(PatchedBreakpoint, VisitsThatDifferKeepFlagsAndRegisters) {
  using namespace testing;
  CodePages pages;
  ASSERT_TRUE(pages.ok());
  uint8_t* code = pages.code();
  const uint64_t fn = pages.base(), pc = fn + kFlagsFnPc, page = pages.stub();
  std::memcpy(code, kFlagsFn.data(), kFlagsFn.size());
  user_regs_struct target{};
  target.rip = pc;
  target.rax = 5;  // x
  target.rdx = 9;  // z
  target.rsp = 0x10;  // never this process's
  auto t = build_trampoline(padded(std::vector<uint8_t>(code + kFlagsFnPc, code + kFlagsFn.size())), target, PatchCompare::All, page);
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_EQ(kFlagsFnMoved, t->displaced);
  pages.place_stub(t->bytes);
  pages.jump_to_stub(kFlagsFnPc);
  struct sigaction sa{}, old{};
  sa.sa_handler = on_trap;
  ASSERT_EQ(0, sigaction(SIGTRAP, &sa, &old));
  g_traps = 0;
  auto f = reinterpret_cast<int64_t (*)(int64_t, int64_t, int64_t)>(fn);
  for (int64_t x : {4, 5, 6})
    for (int64_t y : {5, 6})
      for (int64_t z : {8, 9, 10}) EXPECT_EQ(flags_fn_expected(x, y, z), f(x, y, z)) << x << " " << y << " " << z;
  EXPECT_EQ(0, g_traps);
  sigaction(SIGTRAP, &old, nullptr);
}

}  // namespace
}  // namespace slsdbg::replay
