// Feeds a fixed-seed stream of random and mutated packets through the
// decoder and the dispatcher (deterministic, so a failure reproduces) and
// checks the invariants that keep a client safe: nothing crashes, every
// reply fits in the advertised packet size and carries no unescaped framing
// character, and afterwards the session still answers correctly.
#include <gtest/gtest.h>

#include <random>

#include "gdbserver/protocol/framing.h"
#include "gdbserver/protocol/hex.h"
#include "gdbserver/protocol/session.h"
#include "gdbserver/protocol/tests/memory_test_target.h"

namespace slsdbg::gdbserver {
namespace {

const char* const kCorpus[] = {
    "qSupported:multiprocess+;swbreak+;hwbreak+", "?", "g", "G00", "p10", "P10=0010400000000000", "m401000,4",
    "M601000,2:abcd", "x601000,8", "X601000,2:}\x03}]", "Z0,401010,1", "z0,401010,1", "Z2,601000,4",
    "z2,601000,4", "Z3,601000,8", "Z4,601000,1", "c", "s", "C0b", "S05;401000", "vCont?", "vCont;s:65;c",
    "vCont;C02:p1.66;s", "bc", "bs", "Hg65", "Hc-1", "T66", "qC", "qfThreadInfo", "qsThreadInfo", "qAttached",
    "qOffsets", "qSymbol::", "qTStatus", "qXfer:features:read:target.xml:0,fff",
    "qXfer:auxv:read::0,100", "qXfer:exec-file:read:65:0,100", "qXfer:libraries-svr4:read::0,100",
    "qXfer:threads:read::0,100", "qRcmd,68656c70", "vRun;;6331", "qRRCmd:when:-1", "QStartNoAckMode",
    "vMustReplyEmpty", "vKill;1", "D", "k",
};

std::string mutate(std::mt19937_64& rng, std::string s) {
  std::uniform_int_distribution<int> op(0, 7);
  std::uniform_int_distribution<int> byte(0, 255);
  const char specials[] = ",:;=#$}*-\x03 0fF";
  int rounds = 1 + static_cast<int>(rng() % 4);
  for (int i = 0; i < rounds; ++i) {
    size_t at = s.empty() ? 0 : rng() % s.size();
    switch (op(rng)) {
      case 0: if (!s.empty()) s[at] = static_cast<char>(byte(rng)); break;
      case 1: s.insert(at, 1, specials[rng() % (sizeof specials - 1)]); break;
      case 2: if (!s.empty()) s.erase(at, 1 + rng() % 4); break;
      case 3: s = s.substr(0, at); break;
      case 4: s.insert(at, std::string(rng() % 40, 'f')); break;
      case 5: s += s.substr(at); break;
      case 6: s.insert(at, hex_number(rng())); break;
      case 7: if (!s.empty()) s[at] = specials[rng() % (sizeof specials - 1)]; break;
    }
  }
  return s;
}

std::string random_bytes(std::mt19937_64& rng) {
  std::string s(rng() % 64, '\0');
  for (auto& c : s) c = static_cast<char>(rng() & 0xff);
  return s;
}

void check_reply(const std::string& reply, size_t packet_size) {
  ASSERT_LE(reply.size(), packet_size);
  ASSERT_EQ(reply.find_first_of("#$"), std::string::npos) << "unescaped framing byte in a reply";
}

TEST(Fuzz, RandomAndMutatedPacketsThroughTheDispatcher) {
  std::mt19937_64 rng(20261123);
  NeverStop never;
  for (int round = 0; round < 4; ++round) {
    testing::MemoryTestTarget target(round == 0 ? 0u : testing::kAllCapabilities);
    Session session(target);
    for (int i = 0; i < 5000; ++i) {
      std::string packet = (rng() % 5 == 0) ? random_bytes(rng) : mutate(rng, kCorpus[rng() % std::size(kCorpus)]);
      std::vector<std::string> replies;
      session.handle_packet(packet, never, replies);
      ASSERT_LE(replies.size(), 64u) << packet;
      for (const auto& r : replies) check_reply(r, kDefaultPacketSize);
    }
    // Still answering, and answering right.
    std::vector<std::string> replies;
    session.handle_packet("m401000,4", never, replies);
    ASSERT_FALSE(replies.empty());
    EXPECT_EQ(replies.back().substr(0, 2), "55");
  }
}

TEST(Fuzz, RandomByteStreamsThroughTheDecoderAndDispatcher) {
  std::mt19937_64 rng(7);
  NeverStop never;
  testing::MemoryTestTarget target;
  Session session(target);
  PacketDecoder decoder(256);
  size_t packets = 0;
  for (int i = 0; i < 20000; ++i) {
    std::string chunk;
    switch (rng() % 4) {
      case 0: chunk = random_bytes(rng); break;
      case 1: chunk = frame_packet(mutate(rng, kCorpus[rng() % std::size(kCorpus)])); break;
      case 2: {  // a framed packet with a corrupted checksum or cut short
        std::string f = frame_packet(kCorpus[rng() % std::size(kCorpus)]);
        f = rng() % 2 ? f.substr(0, rng() % f.size()) : f.substr(0, f.size() - 1) + "z";
        chunk = f;
        break;
      }
      case 3: chunk = std::string(1, "+-\x03$#"[rng() % 5]); break;
    }
    std::vector<InputEvent> events;
    decoder.feed(chunk, events);
    for (const auto& e : events) {
      ASSERT_LE(e.payload.size(), decoder.max_payload());
      if (e.kind != InputEvent::Kind::Packet) continue;
      ++packets;
      std::vector<std::string> replies;
      session.handle_packet(e.payload, never, replies);
      for (const auto& r : replies) check_reply(r, kDefaultPacketSize);
    }
  }
  EXPECT_GT(packets, 1000u);  // the stream did reach the dispatcher
  // A clean packet after all that noise still decodes (after at most one resync).
  std::vector<InputEvent> events;
  decoder.feed("#00" + frame_packet("qC"), events);
  ASSERT_FALSE(events.empty());
  EXPECT_EQ(events.back().kind, InputEvent::Kind::Packet);
  EXPECT_EQ(events.back().payload, "qC");
}

}  // namespace
}  // namespace slsdbg::gdbserver
