// Checks Task on a real tracee: register round trips (GPR, FXSAVE, XSAVE,
// signal mask), memory reads and writes including a read-only page, and the
// decoding of wait statuses (event stop, exit).
#include <gtest/gtest.h>

#include <cstring>

#include "process/test_tracee.h"

namespace slsdbg::process {
namespace {

using testing::CommandTracee;

TEST(Task, RegistersRoundTrip) {
  auto t = CommandTracee::start();
  ASSERT_TRUE(t.ok()) << t.error().message;
  ASSERT_TRUE(t->command("G").ok());
  Task& task = t->task();
  auto regs = task.regs();
  ASSERT_TRUE(regs.ok()) << regs.error().message;
  EXPECT_NE(regs->fs_base, 0u);  // glibc's TLS
  user_regs_struct changed = *regs;
  changed.r15 = 0x1122334455667788ull;
  ASSERT_TRUE(task.set_regs(changed).ok());
  EXPECT_EQ(task.regs()->r15, 0x1122334455667788ull);
  ASSERT_TRUE(task.set_regs(*regs).ok());
  EXPECT_EQ(task.regs()->r15, regs->r15);

  auto fp = task.fpregs();
  ASSERT_TRUE(fp.ok()) << fp.error().message;
  user_fpregs_struct fp2 = *fp;
  fp2.xmm_space[0] = 0xdeadbeef;
  ASSERT_TRUE(task.set_fpregs(fp2).ok());
  EXPECT_EQ(task.fpregs()->xmm_space[0], 0xdeadbeefu);

  auto xs = task.xsave();
  ASSERT_TRUE(xs.ok()) << xs.error().message;
  ASSERT_GE(xs->size(), 576u);  // legacy area + header at least
  uint32_t xmm0;
  std::memcpy(&xmm0, xs->data() + 160, 4);  // XMM0 lives at byte 160 of the legacy area
  EXPECT_EQ(xmm0, 0xdeadbeefu);
  (*xs)[160] = 0x42;
  ASSERT_TRUE(task.set_xsave(*xs).ok());
  EXPECT_EQ(task.fpregs()->xmm_space[0] & 0xff, 0x42u);

  ASSERT_TRUE(task.set_signal_mask(1u << (SIGUSR2 - 1)).ok());
  EXPECT_EQ(*task.signal_mask(), 1u << (SIGUSR2 - 1));
  ASSERT_TRUE(task.set_signal_mask(0).ok());
  // The tracee still works after all that.
  EXPECT_TRUE(t->command("G").ok());
}

TEST(Task, ReadsAndWritesMemoryIncludingReadOnlyPages) {
  auto t = CommandTracee::start();
  ASSERT_TRUE(t.ok()) << t.error().message;
  uint64_t global = *t->command("G");
  uint64_t ro = *t->command("R");
  Task& task = t->task();
  std::vector<uint8_t> buf(8192);
  ASSERT_TRUE(task.read_memory(RemoteAddr(global + 100), buf).ok());
  for (size_t i = 0; i < buf.size(); ++i) ASSERT_EQ(buf[i], static_cast<uint8_t>(100 + i)) << i;

  char text[15] = {};
  ASSERT_TRUE(task.read_memory(RemoteAddr(ro), std::span<uint8_t>(reinterpret_cast<uint8_t*>(text), 14)).ok());
  EXPECT_STREQ(text, "read-only page");
  const uint8_t patch[] = {'W', 'R', 'I', 'T'};
  ASSERT_TRUE(task.write_memory(RemoteAddr(ro), patch).ok());
  ASSERT_TRUE(task.read_memory(RemoteAddr(ro), std::span<uint8_t>(reinterpret_cast<uint8_t*>(text), 14)).ok());
  EXPECT_STREQ(text, "WRIT-only page");

  // Writes reach the program: it fills and echoes through its own memory.
  std::vector<uint8_t> ones(4096, 0xee);
  ASSERT_TRUE(task.write_memory(RemoteAddr(global), ones).ok());
  ASSERT_TRUE(task.read_memory(RemoteAddr(global), buf).ok());
  EXPECT_EQ(buf[0], 0xee);
  EXPECT_EQ(buf[4096], 0x00);  // byte 4096 of the pattern
}

TEST(Task, UnmappedMemoryIsAnError) {
  auto t = CommandTracee::start();
  ASSERT_TRUE(t.ok()) << t.error().message;
  uint8_t b[16];
  auto s = t->task().read_memory(RemoteAddr(0x1000), b);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("/mem"), std::string::npos) << s.error().message;
  EXPECT_FALSE(t->task().write_memory(RemoteAddr(0x1000), b).ok());
}

TEST(Task, WaitDecodesExit) {
  auto t = CommandTracee::start();
  ASSERT_TRUE(t.ok()) << t.error().message;
  auto w = t->run_to_exit();
  ASSERT_TRUE(w.ok()) << w.error().message;
  EXPECT_EQ(w->kind, StopKind::Exited);
  EXPECT_EQ(w->exit_code, 0);
}

}  // namespace
}  // namespace slsdbg::process
