// Checks packet framing: checksums, acks, the interrupt byte, input split at
// any point, bad checksums, oversized and truncated packets, and the binary
// escape in both directions.
#include <gtest/gtest.h>

#include <cstdio>

#include "gdbserver/protocol/framing.h"
#include "gdbserver/protocol/hex.h"

namespace slsdbg::gdbserver {
namespace {

using Kind = InputEvent::Kind;

std::vector<InputEvent> decode(std::string_view bytes, size_t limit = 64) {
  PacketDecoder d(limit);
  std::vector<InputEvent> out;
  d.feed(bytes, out);
  return out;
}

TEST(Framing, FramesWithChecksum) {
  EXPECT_EQ(frame_packet("OK"), "$OK#9a");
  EXPECT_EQ(frame_packet(""), "$#00");
  EXPECT_EQ(frame_packet("qC"), "$qC#b4");
}

TEST(Framing, DecodesAPacket) {
  auto ev = decode("$qC#b4");
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].kind, Kind::Packet);
  EXPECT_EQ(ev[0].payload, "qC");
}

TEST(Framing, AcceptsUpperCaseChecksum) {
  char buf[3];
  std::snprintf(buf, sizeof buf, "%02X", packet_checksum("m401000,4"));
  auto ev = decode(std::string("$m401000,4#") + buf);
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].kind, Kind::Packet);
}

TEST(Framing, InputSplitAtEveryByteGivesTheSamePackets) {
  std::string stream = "+" + frame_packet("qSupported:swbreak+") + "-" + frame_packet("g") + "\x03";
  PacketDecoder d(64);
  std::vector<InputEvent> out;
  for (char c : stream) d.feed(std::string_view(&c, 1), out);
  ASSERT_EQ(out.size(), 5u);
  EXPECT_EQ(out[0].kind, Kind::Ack);
  EXPECT_EQ(out[1].payload, "qSupported:swbreak+");
  EXPECT_EQ(out[2].kind, Kind::Nack);
  EXPECT_EQ(out[3].payload, "g");
  EXPECT_EQ(out[4].kind, Kind::Interrupt);
  EXPECT_FALSE(d.mid_packet());
}

TEST(Framing, BadChecksumIsReported) {
  auto ev = decode("$qC#00");
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].kind, Kind::BadChecksum);
  ev = decode("$qC#zz");
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].kind, Kind::BadChecksum);
}

TEST(Framing, OversizedPacketIsConsumedWholeAndTheNextOneDecodes) {
  std::string big(100, 'a');
  auto ev = decode(frame_packet(big) + frame_packet("qC"), 16);
  ASSERT_EQ(ev.size(), 2u);
  EXPECT_EQ(ev[0].kind, Kind::Oversized);
  EXPECT_EQ(ev[1].kind, Kind::Packet);
  EXPECT_EQ(ev[1].payload, "qC");
}

TEST(Framing, PacketAtExactlyTheLimitIsAccepted) {
  auto ev = decode(frame_packet(std::string(16, 'b')), 16);
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].kind, Kind::Packet);
}

TEST(Framing, PacketCutByANewStartIsTruncated) {
  auto ev = decode("$qAtt" + frame_packet("qC"));
  ASSERT_EQ(ev.size(), 2u);
  EXPECT_EQ(ev[0].kind, Kind::Truncated);
  EXPECT_EQ(ev[1].payload, "qC");
}

TEST(Framing, EndOfInputInsideAPacketIsVisible) {
  PacketDecoder d(64);
  std::vector<InputEvent> out;
  d.feed("$qSupp", out);
  EXPECT_TRUE(out.empty());
  EXPECT_TRUE(d.mid_packet());
  d.feed("orted#", out);
  EXPECT_TRUE(d.mid_packet());
}

TEST(Framing, InterruptByteInsideAPacketIsData) {
  // '#' escaped is "}\x03": the 0x03 belongs to the payload.
  std::string payload = "X601000,1:}\x03";
  auto ev = decode(frame_packet(payload));
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].kind, Kind::Packet);
  EXPECT_EQ(ev[0].payload, payload);
}

TEST(Framing, NoiseBetweenPacketsIsIgnored) {
  auto ev = decode("garbage\r\n" + frame_packet("?"));
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].payload, "?");
}

TEST(Escaping, SpecialBytesAreEscapedAndRestored) {
  std::vector<uint8_t> bytes = {'#', '$', '}', '*', 0x00, 0x03, 'a'};
  std::string esc;
  append_escaped_binary(esc, bytes);
  EXPECT_EQ(esc, std::string("}\x03}\x04}]}\x0a", 8) + std::string("\0\x03" "a", 3));
  EXPECT_EQ(esc.find('#'), std::string::npos);
  EXPECT_EQ(esc.find('$'), std::string::npos);
  EXPECT_EQ(esc.find('*'), std::string::npos);
  auto back = unescape_binary(esc);
  ASSERT_TRUE(back);
  EXPECT_EQ(*back, bytes);
}

TEST(Escaping, LoneEscapeAtTheEndIsRejected) { EXPECT_FALSE(unescape_binary("ab}")); }

TEST(Hex, RoundTripsAndRejectsBadInput) {
  std::vector<uint8_t> bytes = {0x00, 0xab, 0xff};
  EXPECT_EQ(to_hex(bytes), "00abff");
  EXPECT_EQ(*from_hex("00ABff"), bytes);
  EXPECT_FALSE(from_hex("abc"));
  EXPECT_FALSE(from_hex("zz"));
  EXPECT_EQ(*parse_hex_u64("401000"), 0x401000u);
  EXPECT_FALSE(parse_hex_u64(""));
  EXPECT_FALSE(parse_hex_u64("12345678901234567"));  // 17 digits overflow
  EXPECT_FALSE(parse_hex_u64("-1"));
}

}  // namespace
}  // namespace slsdbg::gdbserver
