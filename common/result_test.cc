// Error kinds: callers branch on the kind, never on the message; the kind
// survives TRY and context, and a syscall's errno picks a sensible kind.
#include "common/result.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

namespace slsdbg {
namespace {

Result<int> open_missing() {
  int fd = ::open("/nonexistent-slsdbg-dir/file", O_RDONLY);
  if (fd < 0) return Error::from_errno("open /nonexistent-slsdbg-dir/file");
  ::close(fd);
  return fd;
}

Result<int> passes_on() {
  int fd = TRY_CTX(open_missing(), "opening the catalog");
  return fd;
}

Status not_ours() { return Error::bad_input("not a recording (no catalog.db): /tmp/x"); }
Status forwards() {
  TRY(not_ours());
  return ok_status();
}

TEST(ErrorKind, DefaultIsInternal) {
  Error e = Error::msg("something odd");
  EXPECT_TRUE(e.is(ErrorKind::Internal));
  EXPECT_EQ(e.errno_value, 0);
}

TEST(ErrorKind, FromARealSyscallFollowsItsErrno) {
  auto r = open_missing();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().errno_value, ENOENT);
  EXPECT_TRUE(r.error().is(ErrorKind::NotFound)) << error_kind_name(r.error().kind);
  // Writing to a read-only descriptor: the system refuses, an I/O kind.
  int fd = ::open("/proc/self/stat", O_RDONLY);
  ASSERT_GE(fd, 0);
  ssize_t n = ::write(fd, "x", 1);
  int err = errno;
  ::close(fd);
  ASSERT_LT(n, 0);
  EXPECT_TRUE(Error::from_errno("write", err).is(ErrorKind::Io)) << err;
  EXPECT_TRUE(Error::from_errno("x", ENOSYS).is(ErrorKind::Unsupported));
  EXPECT_TRUE(Error::from_errno("x", EACCES).is(ErrorKind::Io));
}

TEST(ErrorKind, SurvivesContextAndTry) {
  auto r = passes_on();
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.error().is(ErrorKind::NotFound));
  EXPECT_EQ(r.error().errno_value, ENOENT);
  EXPECT_EQ(r.error().message.rfind("opening the catalog: open /nonexistent-slsdbg-dir/file: ", 0), 0u)
      << r.error().message;
  auto s = forwards();
  ASSERT_FALSE(s.ok());
  EXPECT_TRUE(s.error().is(ErrorKind::BadInput));
  EXPECT_FALSE(s.error().is(ErrorKind::Internal));
}

TEST(ErrorKind, EachKindHasAName) {
  EXPECT_STREQ(error_kind_name(ErrorKind::NotFound), "not found");
  EXPECT_STREQ(error_kind_name(ErrorKind::BadInput), "bad input");
  EXPECT_STREQ(error_kind_name(ErrorKind::Unsupported), "unsupported");
  EXPECT_STREQ(error_kind_name(ErrorKind::Io), "I/O");
  EXPECT_STREQ(error_kind_name(ErrorKind::Internal), "internal");
  EXPECT_TRUE(Error::unsupported("no uffd-wp").is(ErrorKind::Unsupported));
  EXPECT_TRUE(Error::not_found("no checkpoint 9").is(ErrorKind::NotFound));
}

}  // namespace
}  // namespace slsdbg
