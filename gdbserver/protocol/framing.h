// Packet framing: `$payload#cs` with a modulo-256 checksum, `+`/`-`
// acknowledgements and the 0x03 interrupt byte. The decoder is a byte-at-a-time
// state machine so input may arrive split anywhere; it never trusts lengths
// from the wire and caps a payload at a fixed size (the rest of an oversized
// packet is consumed and reported, so the connection survives).
// Run-length encoding is never produced, and never expected on input: GDB and
// LLDB do not send it, and '*' inside X data is escaped by the client.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace slsdbg::gdbserver {

struct InputEvent {
  enum class Kind {
    Packet,       // a complete packet with a good checksum; payload holds it
    Ack,          // '+'
    Nack,         // '-': retransmit the last reply
    Interrupt,    // 0x03 outside a packet
    BadChecksum,  // complete packet whose checksum does not match (or is not hex)
    Oversized,    // complete packet longer than the payload limit; payload empty
    Truncated,    // a '$' arrived before the previous packet's '#'
  };
  Kind kind;
  std::string payload;
};

class PacketDecoder {
 public:
  explicit PacketDecoder(size_t max_payload) : max_payload_(max_payload) {}

  // Consumes bytes and appends every event they complete to `out`.
  void feed(std::string_view bytes, std::vector<InputEvent>& out);

  // True when input stopped in the middle of a packet (for a truncated stream).
  bool mid_packet() const { return state_ != State::Idle; }
  size_t max_payload() const { return max_payload_; }

 private:
  enum class State { Idle, Payload, Checksum1, Checksum2 };
  void finish(std::vector<InputEvent>& out);

  size_t max_payload_;
  State state_ = State::Idle;
  std::string payload_;
  bool oversized_ = false;
  uint8_t sum_ = 0;
  char checksum_chars_[2] = {0, 0};
};

uint8_t packet_checksum(std::string_view payload);

// "$payload#cs": the payload must already be escaped where it holds binary data.
std::string frame_packet(std::string_view payload);

}  // namespace slsdbg::gdbserver
