// Serving one client over TCP or a Unix socket. Listening is on 127.0.0.1 by
// default: a recording holds process memory, so any address that is not
// loopback needs RemoteAccess::AllowRemote, said explicitly by the user.
//
// While the target runs (resume, reverse resume, seek) the server keeps
// reading the socket through the StopRequest it passes in: a 0x03 from the
// client, or the client going away, makes stop_requested() return true.
// Packets that arrive meanwhile are kept and handled after the stop reply.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/fd.h"
#include "common/result.h"
#include "common/temp_cleanup.h"
#include "gdbserver/protocol/session.h"
#include "gdbserver/protocol/target.h"

namespace slsdbg::gdbserver {

enum class RemoteAccess { LoopbackOnly, AllowRemote };

struct ListenSpec {
  enum class Kind { Tcp, Unix };
  Kind kind = Kind::Tcp;
  std::string host = "127.0.0.1";
  uint16_t port = 0;  // 0: the kernel picks one; Listener::address() tells which
  std::string path;   // Unix socket path
};

// "PORT", "HOST:PORT", "[V6]:PORT" or "unix:PATH".
Result<ListenSpec> parse_listen_spec(std::string_view text);

class Listener {
 public:
  static Result<Listener> open(const ListenSpec& spec, RemoteAccess access);
  Listener(Listener&&) noexcept;
  Listener& operator=(Listener&&) = delete;
  ~Listener();

  // "127.0.0.1:41234" or "unix:/tmp/x.sock": what a client connects to.
  const std::string& address() const { return address_; }
  uint16_t port() const { return port_; }
  Result<UniqueFd> accept_one();
  // Waits at most timeout_ms for a client; nullopt when none came (so a
  // caller can check meanwhile whether the client it started is still alive).
  Result<std::optional<UniqueFd>> accept_within(int timeout_ms);

 private:
  Listener() = default;
  UniqueFd fd_;
  std::string address_;
  uint16_t port_ = 0;
  std::string unix_path_;  // unlinked on destruction
  TempGuard unix_guard_;   // ... and when SIGTERM/SIGINT/SIGHUP kills the process
};

// Runs the protocol on a connected socket until the client kills, detaches
// or disconnects. Returns an error only for a failing socket.
Status serve_connection(int fd, Target& target, const SessionOptions& options = {});

}  // namespace slsdbg::gdbserver
