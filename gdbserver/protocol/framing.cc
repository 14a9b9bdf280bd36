#include "gdbserver/protocol/framing.h"

#include "gdbserver/protocol/hex.h"

namespace slsdbg::gdbserver {

uint8_t packet_checksum(std::string_view payload) {
  uint8_t sum = 0;
  for (char c : payload) sum = static_cast<uint8_t>(sum + static_cast<uint8_t>(c));
  return sum;
}

std::string frame_packet(std::string_view payload) {
  std::string out;
  out.reserve(payload.size() + 4);
  out.push_back('$');
  out.append(payload);
  out.push_back('#');
  uint8_t sum = packet_checksum(payload);
  append_hex(out, std::span<const uint8_t>(&sum, 1));
  return out;
}

void PacketDecoder::feed(std::string_view bytes, std::vector<InputEvent>& out) {
  for (char c : bytes) {
    switch (state_) {
      case State::Idle:
        if (c == '$') {
          state_ = State::Payload;
          payload_.clear();
          oversized_ = false;
          sum_ = 0;
        } else if (c == '+') {
          out.push_back({InputEvent::Kind::Ack, {}});
        } else if (c == '-') {
          out.push_back({InputEvent::Kind::Nack, {}});
        } else if (c == '\x03') {
          out.push_back({InputEvent::Kind::Interrupt, {}});
        }
        // Anything else between packets is line noise: ignore it.
        break;
      case State::Payload:
        if (c == '#') {
          state_ = State::Checksum1;
        } else if (c == '$') {
          // The previous packet lost its end; start over with this one.
          out.push_back({InputEvent::Kind::Truncated, {}});
          payload_.clear();
          oversized_ = false;
          sum_ = 0;
        } else {
          sum_ = static_cast<uint8_t>(sum_ + static_cast<uint8_t>(c));
          if (payload_.size() < max_payload_) {
            payload_.push_back(c);
          } else {
            oversized_ = true;
          }
        }
        break;
      case State::Checksum1:
        checksum_chars_[0] = c;
        state_ = State::Checksum2;
        break;
      case State::Checksum2:
        checksum_chars_[1] = c;
        finish(out);
        state_ = State::Idle;
        break;
    }
  }
}

void PacketDecoder::finish(std::vector<InputEvent>& out) {
  if (oversized_) {
    out.push_back({InputEvent::Kind::Oversized, {}});
    payload_.clear();
    return;
  }
  auto expected = parse_hex_u64(std::string_view(checksum_chars_, 2));
  if (!expected || *expected != sum_) {
    out.push_back({InputEvent::Kind::BadChecksum, {}});
    payload_.clear();
    return;
  }
  out.push_back({InputEvent::Kind::Packet, std::move(payload_)});
  payload_.clear();
}

}  // namespace slsdbg::gdbserver
