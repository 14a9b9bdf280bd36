#include "gdbserver/protocol/server.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <charconv>
#include <cstring>
#include <deque>
#include <memory>

#include "common/log.h"
#include "gdbserver/protocol/framing.h"

namespace slsdbg::gdbserver {
namespace {

constexpr std::string_view kLog = "gdbserver";
constexpr size_t kMaxPendingWhileRunning = 256;

bool is_loopback(const sockaddr* sa) {
  if (sa->sa_family == AF_INET) {
    uint32_t a = ntohl(reinterpret_cast<const sockaddr_in*>(sa)->sin_addr.s_addr);
    return (a >> 24) == 127;
  }
  if (sa->sa_family == AF_INET6) {
    const in6_addr& a = reinterpret_cast<const sockaddr_in6*>(sa)->sin6_addr;
    if (IN6_IS_ADDR_LOOPBACK(&a)) return true;
    return IN6_IS_ADDR_V4MAPPED(&a) && a.s6_addr[12] == 127;
  }
  return false;
}

Status send_all(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    ssize_t n = ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EINTR) continue;
      return Error::from_errno("send");
    }
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return ok_status();
}

// Reads what the client sends while the target runs, looking for 0x03.
class SocketStopRequest final : public StopRequest {
 public:
  SocketStopRequest(int fd, PacketDecoder& decoder, std::deque<InputEvent>& pending)
      : fd_(fd), decoder_(decoder), pending_(pending) {}

  bool stop_requested() override {
    if (interrupted_ || disconnected_) return true;
    // A client that floods packets while the target runs is not heard until
    // the stop; memory stays bounded. (GDB and LLDB send nothing but 0x03.)
    if (pending_.size() >= kMaxPendingWhileRunning) return false;
    pollfd pfd{fd_, POLLIN, 0};
    if (::poll(&pfd, 1, 0) <= 0) return false;
    char buf[4096];
    ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
    if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN)) {
      disconnected_ = true;
      return true;
    }
    if (n < 0) return false;
    std::vector<InputEvent> events;
    decoder_.feed(std::string_view(buf, static_cast<size_t>(n)), events);
    for (auto& e : events) {
      if (e.kind == InputEvent::Kind::Interrupt) {
        interrupted_ = true;
      } else {
        pending_.push_back(std::move(e));
      }
    }
    return interrupted_;
  }

  int wake_fd() const override { return fd_; }
  void reset() { interrupted_ = false; }
  bool disconnected() const { return disconnected_; }

 private:
  int fd_;
  PacketDecoder& decoder_;
  std::deque<InputEvent>& pending_;
  bool interrupted_ = false;
  bool disconnected_ = false;
};

std::optional<uint16_t> parse_port(std::string_view s) {
  unsigned v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size() || v > 65535) return std::nullopt;
  return static_cast<uint16_t>(v);
}

}  // namespace

Result<ListenSpec> parse_listen_spec(std::string_view text) {
  ListenSpec spec;
  if (text.starts_with("unix:")) {
    spec.kind = ListenSpec::Kind::Unix;
    spec.path = std::string(text.substr(5));
    if (spec.path.empty()) return Error::msg("listen address 'unix:' has no path");
    return spec;
  }
  std::string_view port_text = text;
  size_t colon = text.rfind(':');
  if (colon != std::string_view::npos) {
    std::string_view host = text.substr(0, colon);
    if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
    if (host.empty()) return Error::msg("listen address '" + std::string(text) + "' has an empty host");
    spec.host = std::string(host);
    port_text = text.substr(colon + 1);
  }
  auto port = parse_port(port_text);
  if (!port) return Error::msg("listen address '" + std::string(text) + "': port must be a number from 0 to 65535");
  spec.port = *port;
  return spec;
}

Listener::Listener(Listener&& o) noexcept
    : fd_(std::move(o.fd_)), address_(std::move(o.address_)), port_(o.port_), unix_path_(std::move(o.unix_path_)),
      unix_guard_(std::move(o.unix_guard_)) {
  o.unix_path_.clear();
}

Listener::~Listener() {
  if (!unix_path_.empty()) ::unlink(unix_path_.c_str());
}

Result<Listener> Listener::open(const ListenSpec& spec, RemoteAccess access) {
  Listener l;
  if (spec.kind == ListenSpec::Kind::Unix) {
    sockaddr_un sun{};
    sun.sun_family = AF_UNIX;
    if (spec.path.size() >= sizeof sun.sun_path) return Error::msg("unix socket path too long: " + spec.path);
    std::memcpy(sun.sun_path, spec.path.data(), spec.path.size());
    l.fd_.reset(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
    if (!l.fd_.valid()) return Error::from_errno("socket");
    // Created owner-only from the start (no window with the umask's mode):
    // the session can read the recorded memory.
    mode_t old_mask = ::umask(0177);
    int rc = ::bind(l.fd_.get(), reinterpret_cast<sockaddr*>(&sun), sizeof sun);
    int bind_errno = errno;
    ::umask(old_mask);
    if (rc != 0) return Error::from_errno("bind " + spec.path, bind_errno);
    l.unix_path_ = spec.path;
    l.unix_guard_ = TempGuard(spec.path, TempKind::File);
    if (::chmod(spec.path.c_str(), 0600) != 0) return Error::from_errno("chmod " + spec.path);
    if (::listen(l.fd_.get(), 1) != 0) return Error::from_errno("listen");
    l.address_ = "unix:" + spec.path;
    return l;
  }

  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICSERV;
  addrinfo* found = nullptr;
  std::string port_text = std::to_string(spec.port);
  int rc = ::getaddrinfo(spec.host.c_str(), port_text.c_str(), &hints, &found);
  if (rc != 0) return Error::not_found("cannot resolve listen host '" + spec.host + "': " + gai_strerror(rc));
  std::unique_ptr<addrinfo, decltype(&freeaddrinfo)> guard(found, freeaddrinfo);
  if (!is_loopback(found->ai_addr) && access != RemoteAccess::AllowRemote) {
    return Error::bad_input("refusing to listen on " + spec.host +
                      ": not a loopback address, and the session exposes the recorded process memory; "
                      "allow remote access explicitly to do this");
  }
  l.fd_.reset(::socket(found->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!l.fd_.valid()) return Error::from_errno("socket");
  int one = 1;
  ::setsockopt(l.fd_.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (::bind(l.fd_.get(), found->ai_addr, found->ai_addrlen) != 0) {
    return Error::from_errno("bind " + spec.host + ":" + port_text);
  }
  if (::listen(l.fd_.get(), 1) != 0) return Error::from_errno("listen");
  sockaddr_storage bound{};
  socklen_t len = sizeof bound;
  if (::getsockname(l.fd_.get(), reinterpret_cast<sockaddr*>(&bound), &len) != 0) {
    return Error::from_errno("getsockname");
  }
  char host[INET6_ADDRSTRLEN] = {};
  if (bound.ss_family == AF_INET) {
    auto* in = reinterpret_cast<sockaddr_in*>(&bound);
    ::inet_ntop(AF_INET, &in->sin_addr, host, sizeof host);
    l.port_ = ntohs(in->sin_port);
    l.address_ = std::string(host) + ":" + std::to_string(l.port_);
  } else {
    auto* in6 = reinterpret_cast<sockaddr_in6*>(&bound);
    ::inet_ntop(AF_INET6, &in6->sin6_addr, host, sizeof host);
    l.port_ = ntohs(in6->sin6_port);
    l.address_ = "[" + std::string(host) + "]:" + std::to_string(l.port_);
  }
  return l;
}

Result<UniqueFd> Listener::accept_one() {
  while (true) {
    int fd = ::accept4(fd_.get(), nullptr, nullptr, SOCK_CLOEXEC);
    if (fd >= 0) {
      int one = 1;
      ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);  // fails harmlessly on unix sockets
      return UniqueFd(fd);
    }
    if (errno != EINTR) return Error::from_errno("accept");
  }
}

Result<std::optional<UniqueFd>> Listener::accept_within(int timeout_ms) {
  pollfd pfd{fd_.get(), POLLIN, 0};
  int n = ::poll(&pfd, 1, timeout_ms);
  if (n < 0 && errno != EINTR) return Error::from_errno("poll");
  if (n <= 0) return std::optional<UniqueFd>();
  return std::optional<UniqueFd>(TRY(accept_one()));
}

Status serve_connection(int fd, Target& target, const SessionOptions& options) {
  PacketDecoder decoder(options.packet_size);
  Session session(target, options);
  std::deque<InputEvent> pending;
  SocketStopRequest stop(fd, decoder, pending);
  std::string last_sent;  // for a nack: the framed replies to the last packet

  while (true) {
    if (pending.empty()) {
      if (stop.disconnected()) return ok_status();
      char buf[65536];
      ssize_t n = ::recv(fd, buf, sizeof buf, 0);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return Error::from_errno("recv");
      if (n == 0) {
        if (decoder.mid_packet()) SLSDBG_WARN(kLog, "client closed the connection in the middle of a packet");
        return ok_status();
      }
      std::vector<InputEvent> events;
      decoder.feed(std::string_view(buf, static_cast<size_t>(n)), events);
      for (auto& e : events) pending.push_back(std::move(e));
      continue;
    }
    InputEvent event = std::move(pending.front());
    pending.pop_front();
    std::string out;
    switch (event.kind) {
      case InputEvent::Kind::Packet: {
        // Ack before handling: a resume may run for long, and an unacked
        // client would retransmit meanwhile.
        if (!session.no_ack()) TRY(send_all(fd, "+"));
        stop.reset();
        std::vector<std::string> replies;
        session.handle_packet(event.payload, stop, replies);
        last_sent.clear();
        for (const auto& r : replies) last_sent += frame_packet(r);
        out += last_sent;
        break;
      }
      case InputEvent::Kind::Nack:
        if (!session.no_ack()) out = last_sent;
        break;
      case InputEvent::Kind::Ack:
      case InputEvent::Kind::Interrupt:  // nothing is running: nothing to stop
        break;
      case InputEvent::Kind::BadChecksum:
      case InputEvent::Kind::Truncated:
        // Ask for it again; without acks there is no retransmission, so say it failed.
        out = session.no_ack() ? frame_packet("E16") : "-";
        SLSDBG_DEBUG(kLog, "dropped a packet with a bad checksum or no end");
        break;
      case InputEvent::Kind::Oversized:
        // Received whole, so acknowledged; refused because it exceeds PacketSize.
        out = session.no_ack() ? "" : "+";
        out += frame_packet("E07");
        break;
    }
    if (!out.empty()) TRY(send_all(fd, out));
    if (session.closed()) return ok_status();
  }
}

}  // namespace slsdbg::gdbserver
