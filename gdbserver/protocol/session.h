// One client's conversation with a Target: the state the protocol keeps
// between packets (ack mode, selected threads, what the client supports) and
// the dispatcher that hands each packet to its family's handler. Transport
// free: the server feeds it payloads and sends back what it returns, so tests
// drive it directly with golden packets.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "gdbserver/protocol/stop_reason.h"
#include "gdbserver/protocol/target.h"

namespace slsdbg::gdbserver {

// Advertised as PacketSize and used as the limit on input payloads.
inline constexpr size_t kDefaultPacketSize = 0x4000;

// The replay of fork child `pid` from its start (its fork), for a client that
// follows the child (GDB's follow-fork-mode child); an error says why not.
using ForkChildOpener = std::function<Result<std::unique_ptr<Target>>(int32_t pid)>;

struct SessionOptions {
  size_t packet_size = kDefaultPacketSize;
  ForkChildOpener open_fork_child;  // empty: following a child is refused
};

// A thread named in H, vCont or T: -1 all, 0 any, or one tid.
struct ThreadSelector {
  enum class Kind { All, Any, One };
  Kind kind = Kind::Any;
  Tid tid{};
};

// Parses "-1", "0", "1f" and the multiprocess form "p1f.20" (pid ignored).
std::optional<ThreadSelector> parse_thread_selector(std::string_view text);
// The pid of the multiprocess form "p1f.20" or "p1f" (0 for the plain forms).
int32_t thread_selector_pid(std::string_view text);

struct SessionData {
  SessionOptions options;
  bool no_ack = false;
  bool closed = false;  // after k, vKill or D: end the connection
  ClientFeatures client;
  ThreadSelector general_thread;   // Hg: registers and memory
  ThreadSelector continue_thread;  // Hc: legacy c/s, bc/bs
  std::optional<Tid> last_stop_thread;
  // Children named by fork/vfork stops that the client has not detached yet,
  // and the one its Hg selects (0: the target's own process). Breakpoint
  // removals aimed at a child never reach the target: its process is the
  // parent's replay.
  std::set<int32_t> fork_children;
  int32_t general_child = 0;
  bool target_gone = false;  // detached or killed, the connection open for the children's D
  // The fork child this connection switched to (packets_threads.cc): once
  // set, every packet goes to it instead of the target the session began with.
  std::unique_ptr<Target> followed;
  std::map<int, std::string> open_files;  // vFile: fd -> content
  int next_file = 1;
};

class Session {
 public:
  explicit Session(Target& target, SessionOptions options = {});

  // Handles one packet payload (as received, escapes intact) and appends the
  // payloads to send, in order (console output first, then the reply).
  void handle_packet(std::string_view payload, StopRequest& stop, std::vector<std::string>& replies);

  bool no_ack() const { return data_.no_ack; }
  bool closed() const { return data_.closed; }
  const SessionData& data() const { return data_; }

 private:
  Target& target() { return data_.followed ? *data_.followed : target_; }
  Target& target_;
  SessionData data_;
};

}  // namespace slsdbg::gdbserver
