// Checks the server over real sockets: listen addresses (loopback by default,
// anything else refused unless allowed, port 0 reports the chosen port, unix
// sockets owner-only), acks and nacks with retransmission, bad checksums,
// oversized and truncated packets (the connection survives), no-ack mode,
// an interrupt (0x03) stopping a running target, and disconnects.
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <unistd.h>

#include <cstdlib>
#include <thread>

#include "gdbserver/protocol/framing.h"
#include "gdbserver/protocol/server.h"
#include "gdbserver/protocol/tests/memory_test_target.h"

namespace slsdbg::gdbserver {
namespace {

using testing::ForwardEnd;
using testing::MemoryTestTarget;

constexpr int kTimeoutMs = 60000;  // generous: the machine may be busy

int connect_to(const Listener& l) {
  std::string addr = l.address();
  if (addr.starts_with("unix:")) {
    int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un sun{};
    sun.sun_family = AF_UNIX;
    std::string path = addr.substr(5);
    std::memcpy(sun.sun_path, path.data(), path.size());
    EXPECT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&sun), sizeof sun), 0);
    return fd;
  }
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in in{};
  in.sin_family = AF_INET;
  in.sin_port = htons(l.port());
  in.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  EXPECT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&in), sizeof in), 0);
  return fd;
}

// A client end: raw bytes out; in, either a fixed number of bytes (acks)
// or everything up to the end of the next complete packet.
class Client {
 public:
  explicit Client(int fd) : fd_(fd) {}
  ~Client() { close(); }
  void close() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }
  void send(std::string_view bytes) {
    ASSERT_EQ(::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL), static_cast<ssize_t>(bytes.size()));
  }
  std::string next_bytes(size_t n) {
    while (buffer_.size() < n && fill()) {
    }
    return take(std::min(n, buffer_.size()));
  }
  // Acks before the packet are included: "+$OK#9a".
  std::string next_packet() {
    while (true) {
      size_t hash = buffer_.find('#', buffer_.find('$') == std::string::npos ? buffer_.size() : buffer_.find('$'));
      if (hash != std::string::npos && buffer_.size() >= hash + 3) return take(hash + 3);
      if (!fill()) return take(buffer_.size());
    }
  }
  // True when the server closed the connection.
  bool closed_by_peer() {
    while (fill()) {
    }
    return eof_;
  }

 private:
  bool fill() {
    pollfd pfd{fd_, POLLIN, 0};
    if (::poll(&pfd, 1, kTimeoutMs) <= 0) return false;
    char buf[4096];
    ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
    if (n <= 0) {
      eof_ = n == 0;
      return false;
    }
    buffer_.append(buf, static_cast<size_t>(n));
    return true;
  }
  std::string take(size_t n) {
    std::string out = buffer_.substr(0, n);
    buffer_.erase(0, n);
    return out;
  }
  int fd_;
  bool eof_ = false;
  std::string buffer_;
};

// Runs serve_connection for one accepted client on a thread.
class ServedTarget {
 public:
  explicit ServedTarget(ForwardEnd end = ForwardEnd::HistoryEnd, std::string listen = "127.0.0.1:0")
      : target(testing::kAllCapabilities, end) {
    auto spec = parse_listen_spec(listen);
    EXPECT_TRUE(spec.ok());
    auto l = Listener::open(*spec, RemoteAccess::LoopbackOnly);
    EXPECT_TRUE(l.ok()) << (l.ok() ? "" : l.error().message);
    listener.emplace(std::move(*l));
    client.emplace(connect_to(*listener));
    thread = std::thread([this] {
      auto conn = listener->accept_one();
      if (!conn.ok()) return;
      result = serve_connection(conn->get(), target);
      finished = true;
    });
  }
  ~ServedTarget() {
    client->close();
    if (thread.joinable()) thread.join();
  }
  MemoryTestTarget target;
  std::optional<Listener> listener;
  std::optional<Client> client;
  std::thread thread;
  Status result;
  std::atomic<bool> finished{false};
};

TEST(ListenSpec, ParsesTheForms) {
  auto a = parse_listen_spec("1234");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->host, "127.0.0.1");
  EXPECT_EQ(a->port, 1234);
  auto b = parse_listen_spec("localhost:0");
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->host, "localhost");
  auto c = parse_listen_spec("[::1]:5");
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->host, "::1");
  auto d = parse_listen_spec("unix:/tmp/x.sock");
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->kind, ListenSpec::Kind::Unix);
  EXPECT_EQ(d->path, "/tmp/x.sock");
}

TEST(ListenSpec, BadAddressesAreOneLineErrors) {
  for (const char* bad : {"", "abc", "70000", "unix:", ":5", "host:", "1.2.3.4:-1"}) {
    auto r = parse_listen_spec(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.error().message.find('\n'), std::string::npos);
  }
}

TEST(Listener, PortZeroReportsTheChosenPortOnLoopback) {
  auto l = Listener::open(*parse_listen_spec("0"), RemoteAccess::LoopbackOnly);
  ASSERT_TRUE(l.ok()) << l.error().message;
  EXPECT_NE(l->port(), 0);
  EXPECT_EQ(l->address(), "127.0.0.1:" + std::to_string(l->port()));
}

TEST(Listener, NonLoopbackNeedsExplicitPermission) {
  auto refused = Listener::open(*parse_listen_spec("0.0.0.0:0"), RemoteAccess::LoopbackOnly);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message.find("not a loopback address"), std::string::npos) << refused.error().message;
  auto allowed = Listener::open(*parse_listen_spec("0.0.0.0:0"), RemoteAccess::AllowRemote);
  ASSERT_TRUE(allowed.ok()) << allowed.error().message;
  EXPECT_NE(allowed->port(), 0);
}

TEST(Listener, UnresolvableHostIsAnError) {
  auto r = Listener::open(*parse_listen_spec("no.such.host.invalid:0"), RemoteAccess::LoopbackOnly);
  EXPECT_FALSE(r.ok());
}

TEST(Listener, UnixSocketIsOwnerOnlyAndRemovedAfterwards) {
  const char* tmp = std::getenv("TMPDIR");
  std::string templ = std::string(tmp && *tmp ? tmp : "/tmp") + "/gdbproto_XXXXXX";
  std::vector<char> buf(templ.begin(), templ.end());
  buf.push_back('\0');
  ASSERT_NE(::mkdtemp(buf.data()), nullptr);
  std::string path = std::string(buf.data()) + "/s.sock";
  {
    ServedTarget served(ForwardEnd::HistoryEnd, "unix:" + path);
    struct stat st {};
    ASSERT_EQ(::stat(path.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0600u);
    served.client->send(frame_packet("qC"));
    EXPECT_EQ(served.client->next_packet(), "+" + frame_packet("QC65"));
    // Binding the same path again fails instead of stealing it.
    auto again = Listener::open(*parse_listen_spec("unix:" + path), RemoteAccess::LoopbackOnly);
    EXPECT_FALSE(again.ok());
  }
  struct stat st {};
  EXPECT_NE(::stat(path.c_str(), &st), 0);
  ::rmdir(buf.data());
}

TEST(Server, AcksAndAnswers) {
  ServedTarget served;
  served.client->send(frame_packet("qC"));
  EXPECT_EQ(served.client->next_packet(), "+" + frame_packet("QC65"));
}

TEST(Server, NackGetsTheLastReplyAgain) {
  ServedTarget served;
  served.client->send(frame_packet("m401000,4"));
  EXPECT_EQ(served.client->next_packet(), "+" + frame_packet("554889e5"));
  served.client->send("-");
  EXPECT_EQ(served.client->next_packet(), frame_packet("554889e5"));
}

TEST(Server, BadChecksumIsNackedAndTheConnectionGoesOn) {
  ServedTarget served;
  served.client->send("$qC#00");
  EXPECT_EQ(served.client->next_bytes(1), "-");
  served.client->send(frame_packet("qC"));
  EXPECT_EQ(served.client->next_packet(), "+" + frame_packet("QC65"));
}

TEST(Server, OversizedPacketGetsAnErrorAndTheConnectionSurvives) {
  ServedTarget served;
  served.client->send(frame_packet("M601000,1:" + std::string(kDefaultPacketSize + 100, 'a')));
  EXPECT_EQ(served.client->next_packet(), "+" + frame_packet("E07"));
  served.client->send(frame_packet("qC"));
  EXPECT_EQ(served.client->next_packet(), "+" + frame_packet("QC65"));
}

TEST(Server, TruncatedPacketIsNackedAndTheNextOneAnswered) {
  ServedTarget served;
  served.client->send("$m4010" + frame_packet("qC"));
  EXPECT_EQ(served.client->next_packet(), "-+" + frame_packet("QC65"));
}

TEST(Server, NoAckModeStopsTheAcks) {
  ServedTarget served;
  served.client->send(frame_packet("QStartNoAckMode"));
  EXPECT_EQ(served.client->next_packet(), "+" + frame_packet("OK"));
  served.client->send("+" + frame_packet("qC"));
  EXPECT_EQ(served.client->next_packet(), frame_packet("QC65"));
  // Without acks a bad checksum cannot be retransmitted: it gets an error reply.
  served.client->send("$qC#00");
  EXPECT_EQ(served.client->next_packet(), frame_packet("E16"));
}

TEST(Server, InterruptStopsARunningTarget) {
  ServedTarget served(ForwardEnd::RunsUntilInterrupted);
  served.client->send(frame_packet("c"));
  EXPECT_EQ(served.client->next_bytes(1), "+");
  // The target is running now and stops only when asked; ask it, and send a
  // packet right behind the interrupt: it is answered after the stop reply.
  served.client->send("\x03" + frame_packet("qC"));
  EXPECT_EQ(served.client->next_packet(), frame_packet("T02thread:65;"));
  EXPECT_EQ(served.client->next_packet(), "+" + frame_packet("QC65"));
}

TEST(Server, ClientVanishingWhileTheTargetRunsEndsTheSession) {
  ServedTarget served(ForwardEnd::RunsUntilInterrupted);
  served.client->send(frame_packet("c"));
  EXPECT_EQ(served.client->next_bytes(1), "+");
  served.client->close();
  served.thread.join();
  EXPECT_TRUE(served.finished);
  EXPECT_TRUE(served.result.ok());
}

TEST(Server, DetachAnswersAndCloses) {
  ServedTarget served;
  served.client->send(frame_packet("D"));
  EXPECT_EQ(served.client->next_packet(), "+" + frame_packet("OK"));
  EXPECT_TRUE(served.client->closed_by_peer());
  served.thread.join();
  EXPECT_EQ(served.target.detach_count, 1);
}

TEST(Server, EndOfInputInsideAPacketEndsQuietly) {
  ServedTarget served;
  served.client->send("$qSupp");
  served.client->close();
  served.thread.join();
  EXPECT_TRUE(served.result.ok());
}

}  // namespace
}  // namespace slsdbg::gdbserver
