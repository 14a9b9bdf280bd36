// Checks the /proc readers and the injected handler/brk reader against what
// the fixture program did: its maps, fd table, signal handler, brk, auxv,
// exe, cwd and command line.
#include <elf.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>

#include "process/inject.h"
#include "process/proc_fds.h"
#include "process/proc_identity.h"
#include "process/proc_maps.h"
#include "process/proc_signals.h"
#include "process/test_tracee.h"

namespace slsdbg::process {
namespace {

using testing::CommandTracee;

TEST(Proc, MapsShowTheProgramsMappings) {
  auto t = CommandTracee::start();
  ASSERT_TRUE(t.ok()) << t.error().message;
  uint64_t global = *t->command("G");
  uint64_t ro = *t->command("R");
  auto maps = read_maps(t->pid());
  ASSERT_TRUE(maps.ok()) << maps.error().message;
  bool global_seen = false, ro_seen = false, stack = false, special = false;
  for (size_t i = 0; i < maps->size(); ++i) {
    const auto& m = (*maps)[i];
    if (i > 0) {
      EXPECT_LE((*maps)[i - 1].end, m.start);
    }
    if (m.start <= global && global < m.end) {
      global_seen = (m.prot & PROT_WRITE) != 0;
    }
    if (m.start == ro) ro_seen = m.prot == PROT_READ && (m.flags & flag(store::MappingFlags::Anonymous));
    if (m.path == "[stack]") stack = (m.flags & flag(store::MappingFlags::Stack)) != 0;
    if (m.path == "[vdso]") special = is_special_mapping(m) && (m.flags & flag(store::MappingFlags::Vdso));
  }
  EXPECT_TRUE(global_seen);
  EXPECT_TRUE(ro_seen);
  EXPECT_TRUE(stack);
  EXPECT_TRUE(special);
  EXPECT_FALSE(read_maps(999999999).ok());
}

TEST(Proc, FdTableShowsThePipes) {
  auto t = CommandTracee::start();
  ASSERT_TRUE(t.ok()) << t.error().message;
  ASSERT_TRUE(t->command("G").ok());
  auto fds = read_fds(t->pid());
  ASSERT_TRUE(fds.ok()) << fds.error().message;
  ASSERT_GE(fds->size(), 2u);
  EXPECT_EQ((*fds)[0].fd, 0);
  EXPECT_EQ((*fds)[0].path.rfind("pipe:", 0), 0u) << (*fds)[0].path;
  EXPECT_EQ((*fds)[0].flags & O_ACCMODE, O_RDONLY);
  EXPECT_EQ((*fds)[0].fd_flags, 0);
  EXPECT_EQ((*fds)[1].fd, 1);
  EXPECT_EQ((*fds)[1].flags & O_ACCMODE, O_WRONLY);
}

TEST(Proc, HandlersBrkAndPendingSignals) {
  auto t = CommandTracee::start();
  ASSERT_TRUE(t.ok()) << t.error().message;
  uint64_t handler = *t->command("H");
  uint64_t old_brk = *t->command("B 3");
  Task& task = t->task();
  ASSERT_OK(install_injection_page(task));
  auto hb = read_handlers_and_brk(task);
  ASSERT_TRUE(hb.ok()) << hb.error().message;
  const auto& usr1 = hb->actions[SIGUSR1 - 1];
  EXPECT_EQ(usr1.handler, handler);
  EXPECT_TRUE(usr1.flags & SA_RESTART);
  EXPECT_EQ(usr1.mask, 1u << (SIGUSR2 - 1));
  EXPECT_EQ(hb->actions[SIGTERM - 1].handler, 0u);  // SIG_DFL
  EXPECT_EQ(hb->brk, old_brk + 3 * 4096);
  auto start = read_brk_start(t->pid());
  ASSERT_TRUE(start.ok()) << start.error().message;
  EXPECT_LE(*start, old_brk);

  ASSERT_EQ(kill(t->pid(), SIGUSR2), 0);  // not blocked: pending until the tracee runs
  auto p = read_pending_signals(t->pid(), t->pid());
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_EQ(p->shared_pending, 1u << (SIGUSR2 - 1));
  EXPECT_EQ(p->blocked, 0u);
}

TEST(Proc, IdentityAuxvExeCwdCmdline) {
  auto t = CommandTracee::start();
  ASSERT_TRUE(t.ok()) << t.error().message;
  auto auxv = read_auxv(t->pid());
  ASSERT_TRUE(auxv.ok()) << auxv.error().message;
  bool pagesz = false;
  for (size_t i = 0; i + 16 <= auxv->size(); i += 16) {
    uint64_t kv[2];
    std::memcpy(kv, auxv->data() + i, 16);
    if (kv[0] == AT_PAGESZ) pagesz = kv[1] == 4096;
  }
  EXPECT_TRUE(pagesz);
  EXPECT_NE(read_exe(t->pid())->find("capture_pages"), std::string::npos);
  char cwd[4096];
  ASSERT_NE(getcwd(cwd, sizeof cwd), nullptr);
  EXPECT_EQ(*read_cwd(t->pid()), cwd);
  auto cmd = *read_cmdline(t->pid());
  ASSERT_EQ(cmd.size(), 1u);
  EXPECT_EQ(cmd[0], testing::fixture_path("capture_pages"));
  EXPECT_FALSE(read_exe(999999999).ok());
}

}  // namespace
}  // namespace slsdbg::process
