// libFuzzer target for the packet parser and dispatcher: the input is a raw
// byte stream from a client. It goes through the framing decoder, and every
// packet it yields (plus the whole input taken as one payload) through the
// dispatcher in front of the in-memory test target. A crash, a sanitizer
// report, or a reply that breaks framing (an unescaped '#'/'$' or a reply
// over the packet size) is a finding. Run it with bench/fuzz_gdbproto.sh.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "gdbserver/protocol/framing.h"
#include "gdbserver/protocol/session.h"
#include "gdbserver/protocol/tests/memory_test_target.h"

using namespace slsdbg::gdbserver;

namespace {

void check(const std::vector<std::string>& replies) {
  for (const auto& r : replies) {
    if (r.size() > kDefaultPacketSize) __builtin_trap();
    if (r.find_first_of("#$") != std::string::npos) __builtin_trap();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  testing::MemoryTestTarget target;
  Session session(target);
  NeverStop never;

  std::vector<std::string> replies;
  session.handle_packet(input, never, replies);
  check(replies);

  PacketDecoder decoder(512);
  std::vector<InputEvent> events;
  decoder.feed(input, events);
  for (const auto& e : events) {
    if (e.payload.size() > decoder.max_payload()) __builtin_trap();
    if (e.kind != InputEvent::Kind::Packet) continue;
    replies.clear();
    session.handle_packet(e.payload, never, replies);
    check(replies);
  }
  return 0;
}
