// read_fds on this test's own process: path, offset, access mode,
// O_APPEND and close-on-exec of a file it opened, as the kernel reports them.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <string>

#include "process/proc_fds.h"

namespace slsdbg::process {
namespace {

TEST(ReadFds, OffsetFlagsAndCloexecOfAnOpenFile) {
  char path[] = "/tmp/slsdbg-fds-XXXXXX";
  const int tmp = mkstemp(path);
  ASSERT_GE(tmp, 0);
  ASSERT_EQ(::write(tmp, std::string(300, 'x').data(), 300), 300);
  const int a = ::open(path, O_RDWR | O_APPEND | O_CLOEXEC);
  const int b = ::open(path, O_RDONLY);
  ASSERT_GE(a, 0);
  ASSERT_GE(b, 0);
  ASSERT_EQ(::lseek(b, 123, SEEK_SET), 123);
  auto fds = read_fds(::getpid());
  ASSERT_TRUE(fds.ok()) << fds.error().message;
  const store::FdEntry *ea = nullptr, *eb = nullptr;
  for (const auto& e : *fds) {
    if (e.fd == a) ea = &e;
    if (e.fd == b) eb = &e;
  }
  ASSERT_TRUE(ea && eb);
  EXPECT_EQ(ea->path, path);
  EXPECT_EQ(ea->flags & O_ACCMODE, O_RDWR);
  EXPECT_TRUE(ea->flags & O_APPEND);
  EXPECT_EQ(ea->fd_flags, FD_CLOEXEC);
  EXPECT_EQ(ea->offset, 0u);
  EXPECT_EQ(eb->flags & O_ACCMODE, O_RDONLY);
  EXPECT_FALSE(eb->flags & O_APPEND);
  EXPECT_EQ(eb->fd_flags, 0);
  EXPECT_EQ(eb->offset, 123u);
  for (size_t i = 1; i < fds->size(); ++i) EXPECT_LT((*fds)[i - 1].fd, (*fds)[i].fd);
  ::close(a);
  ::close(b);
  ::close(tmp);
  ::unlink(path);
  EXPECT_FALSE(read_fds(999999999).ok());
}

}  // namespace
}  // namespace slsdbg::process
