// Bytes waiting in this test's own pipe and sockets, read without taking
// them: the reads after still get every byte, in order.
#include "process/queued_bytes.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include "process/remote_fd.h"

namespace slsdbg::process {
namespace {

TEST(QueuedBytes, PipeBytesStayForTheReader) {
  int p[2];
  ASSERT_EQ(::pipe(p), 0);
  ASSERT_EQ(::write(p[1], "hello\0x", 7), 7);
  for (int end : {p[0], p[1]}) {  // either end names the pipe
    auto got = pipe_queued_bytes(::getpid(), end);
    ASSERT_TRUE(got.ok()) << got.error().message;
    EXPECT_EQ(*got, std::string("hello\0x", 7));
  }
  char back[8] = {};
  EXPECT_EQ(::read(p[0], back, sizeof back), 7);
  EXPECT_EQ(std::string(back, 7), std::string("hello\0x", 7));
  auto empty = pipe_queued_bytes(::getpid(), p[0]);
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(*empty, "");
  ::close(p[0]);
  ::close(p[1]);
}

TEST(QueuedBytes, SocketBytesAndDatagramsStayForTheReader) {
  auto pidfd = open_pidfd(::getpid());
  ASSERT_TRUE(pidfd.ok()) << pidfd.error().message;
  for (int type : {SOCK_STREAM, SOCK_DGRAM, SOCK_SEQPACKET}) {
    int sv[2];
    ASSERT_EQ(::socketpair(AF_UNIX, type, 0, sv), 0);
    ASSERT_EQ(::send(sv[0], "one", 3, 0), 3);
    ASSERT_EQ(::send(sv[0], "three", 5, 0), 5);
    auto got = socket_queued_bytes(pidfd->get(), sv[1], type);
    ASSERT_TRUE(got.ok()) << got.error().message;
    if (type == SOCK_STREAM) {
      EXPECT_EQ(*got, "onethree");
    } else {
      EXPECT_EQ(datagram_frames(*got), (std::vector<std::string>{"one", "three"})) << type;
      int off = 0;
      socklen_t len = sizeof off;
      ASSERT_EQ(::getsockopt(sv[1], SOL_SOCKET, SO_PEEK_OFF, &off, &len), 0);
      EXPECT_EQ(off, -1);  // the socket's own peek offset put back
    }
    char back[16] = {};
    EXPECT_EQ(::recv(sv[1], back, sizeof back, MSG_DONTWAIT), type == SOCK_STREAM ? 8 : 3) << type;
    ::close(sv[0]);
    ::close(sv[1]);
  }
  EXPECT_TRUE(datagram_frames(std::string("\x05\0\0\0ab", 6)).empty());  // a torn frame
}

}  // namespace
}  // namespace slsdbg::process
