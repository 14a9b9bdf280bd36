// Golden packets in and out for every packet family, against the in-memory
// test target: what each packet answers, that an absent capability or an
// unknown packet gets the empty reply, and that malformed packets get an
// error reply.
#include <gtest/gtest.h>

#include "gdbserver/protocol/hex.h"
#include "gdbserver/protocol/session.h"
#include "gdbserver/protocol/signals.h"
#include "gdbserver/protocol/target_description.h"
#include "gdbserver/protocol/tests/memory_test_target.h"

namespace slsdbg::gdbserver {
namespace {

using testing::kCodeBase;
using testing::kMainTid;
using testing::kWorkerTid;
using testing::MemoryTestTarget;

// A session's last reply to one packet.
std::string last_reply(Session& session, std::string_view packet) {
  NeverStop never;
  std::vector<std::string> r;
  session.handle_packet(packet, never, r);
  return r.empty() ? std::string("<none>") : r.back();
}

class Packets : public ::testing::Test {
 protected:
  explicit Packets(unsigned caps = testing::kAllCapabilities) : target(caps), session(target) {}

  std::vector<std::string> exchange(std::string_view packet) {
    std::vector<std::string> replies;
    session.handle_packet(packet, never, replies);
    return replies;
  }
  // The single reply to a packet.
  std::string ask(std::string_view packet) {
    auto r = exchange(packet);
    EXPECT_EQ(r.size(), 1u) << "packet " << packet;
    return r.empty() ? "<none>" : r.back();
  }

  MemoryTestTarget target;
  Session session;
  NeverStop never;
};

class BarePackets : public Packets {
 protected:
  BarePackets() : Packets(0) {}
};

TEST_F(Packets, QSupportedAdvertisesEveryCapabilityTheTargetHas) {
  EXPECT_EQ(ask("qSupported:multiprocess+;swbreak+;hwbreak+;qRelocInsn+;fork-events+;vContSupported+"),
            "PacketSize=4000;QStartNoAckMode+;qXfer:features:read+;vContSupported+;swbreak+;hwbreak+;"
            "qXfer:auxv:read+;qXfer:exec-file:read+;qXfer:libraries-svr4:read+;qXfer:threads:read+;"
            "ReverseContinue+;ReverseStep+");
}

TEST_F(Packets, QSupportedEchoesExecEventsWhenOffered) {
  const std::string r = ask("qSupported:swbreak+;exec-events+");
  EXPECT_TRUE(r.ends_with(";exec-events+")) << r;
  EXPECT_EQ(ask("qSupported:swbreak+").find("exec-events"), std::string::npos);
}

TEST_F(BarePackets, QSupportedAdvertisesOnlyTheCore) {
  EXPECT_EQ(ask("qSupported"), "PacketSize=4000;QStartNoAckMode+;qXfer:features:read+;vContSupported+;"
                               "qXfer:threads:read+");
}

TEST_F(Packets, UnknownPacketsGetTheEmptyReply) {
  for (const char* p : {"qHostInfo", "qProcessInfo", "qRegisterInfo0", "jThreadsInfo", "vFile:open:2f,0,0",
                        "qFoo", "QThreadSuffixSupported", "!", "i", "R00", "A", "vCtrlC", "qGetTLSAddr:1,2,3",
                        "qXfer:siginfo:read::0,10", "qXfer:auxv:write::0:00", "vMustReplyEmpty"}) {
    EXPECT_EQ(ask(p), "") << p;
  }
}

TEST_F(BarePackets, AbsentCapabilitiesGetTheEmptyReply) {
  for (const char* p : {"bc", "bs", "Z0,401000,1", "z0,401000,1", "Z1,401000,1", "Z2,601000,4", "Z3,601000,4",
                        "Z4,601000,4", "qRcmd,68656c70", "vRun;;6331", "qRRCmd:when:-1",
                        "qXfer:auxv:read::0,100", "qXfer:exec-file:read:65:0,100",
                        "qXfer:libraries-svr4:read::0,100"}) {
    EXPECT_EQ(ask(p), "") << p;
  }
}

TEST_F(Packets, MalformedPacketsGetAnErrorReply) {
  for (const char* p : {"m", "m401000", "mzz,4", "m401000,", "M601000,2:abc", "M601000,3:abcd", "Mx", "p", "pzz",
                        "p4c", "P10", "P10=zz", "P10=00", "G0", "Gzz", "x", "X601000,2:a", "X601000,1:}",
                        "Z9,401000,1", "Z0", "Z0,401000", "Z2,601000,0", "Hx1", "Hg", "Hgzz", "T", "Tzz", "C",
                        "Czz", "C1ff", "S", "vCont;", "vCont;x", "vCont;c;c", "vCont;c:zz", "vCont;Czz",
                        "qXfer:features:read:target.xml:zz,1", "qXfer:features:read:target.xml", "qXfer:x",
                        "qXfer:features:read:nope.xml:0,10", "qRcmd,zz", "qRcmd,123", "vRun;exe", "vRun;zz;6331", "vRun;;zz",
                        "vRun;;6378", "qRRCmd:", "Dx"}) {
    std::string r = ask(p);
    EXPECT_TRUE(!r.empty() && r[0] == 'E') << p << " -> '" << r << "'";
  }
}

TEST_F(Packets, StopReasonNamesTheThread) { EXPECT_EQ(ask("?"), "T05thread:65;"); }

TEST_F(Packets, ReadsAllRegistersInNumberOrder) {
  std::string g = ask("g");
  EXPECT_EQ(g.size(), 2 * x86_64_register_file_size());
  EXPECT_EQ(g.substr(0, 16), "8877665544332211");           // rax, little endian
  EXPECT_EQ(g.substr(16 * 16, 16), "0010400000000000");     // rip at 16*8 bytes
  EXPECT_EQ(g.substr(17 * 16, 8), "46020000");              // eflags, 4 bytes
}

TEST_F(Packets, ReadsAndWritesOneRegister) {
  EXPECT_EQ(ask("p10"), "0010400000000000");
  EXPECT_EQ(ask("p11"), "46020000");
  EXPECT_EQ(ask("P10=0810400000000000"), "OK");
  EXPECT_EQ(target.reg(kMainTid, x86_64::kRip), kCodeBase + 8);
  EXPECT_EQ(ask("p10"), "0810400000000000");
  EXPECT_EQ(ask("p3c").size(), 32u);  // ymm0h
}

TEST_F(Packets, WritesAllRegisters) {
  std::string g = ask("g");
  g.replace(0, 16, "0100000000000000");
  EXPECT_EQ(ask("G" + g), "OK");
  EXPECT_EQ(target.reg(kMainTid, x86_64::kRax), 1u);
}

TEST_F(Packets, RefusedRegisterWritesSayWhyInTheErrorReply) {
  // GDB prints the reply of a failed P/G ("remote failure reply 'E.…'").
  target.registers_read_only = true;
  EXPECT_EQ(ask("P10=0810400000000000"), "E.registers are read-only here");
  std::string g = ask("g");
  EXPECT_EQ(ask("G" + g), "E.registers are read-only here");
  EXPECT_EQ(target.reg(kMainTid, x86_64::kRip), kCodeBase);
}

TEST_F(Packets, ThreadSelectionChangesWhoseRegistersAreRead) {
  EXPECT_EQ(ask("Hg66"), "OK");
  EXPECT_EQ(ask("p7"), "6600fe7f00000000");  // worker's rsp
  EXPECT_EQ(ask("Hgp1.65"), "OK");
  EXPECT_EQ(ask("p7"), "6500fe7f00000000");
  EXPECT_EQ(ask("Hg99"), "E03");
  EXPECT_EQ(ask("Hc-1"), "OK");
  EXPECT_EQ(ask("Hg0"), "OK");
}

TEST_F(Packets, ThreadQueries) {
  EXPECT_EQ(ask("qC"), "QC65");
  EXPECT_EQ(ask("qfThreadInfo"), "m65,66");
  EXPECT_EQ(ask("qsThreadInfo"), "l");
  EXPECT_EQ(ask("T66"), "OK");
  EXPECT_EQ(ask("T99"), "E03");
  EXPECT_EQ(ask("qAttached"), "1");
  EXPECT_EQ(ask("qAttached:1"), "1");
  EXPECT_EQ(ask("qOffsets"), "");
  EXPECT_EQ(ask("qSymbol::"), "OK");
  EXPECT_EQ(ask("qTStatus"), "");
}

TEST_F(Packets, ReadsMemoryInHexAndBinary) {
  EXPECT_EQ(ask("m401000,4"), "554889e5");
  EXPECT_EQ(ask("m0,4"), "E0e");
  EXPECT_EQ(ask("m601000,0"), "");
  // Past the end of the region: the readable prefix only.
  EXPECT_EQ(ask("m601ffe,10"), "feff");
  EXPECT_EQ(ask("x601001,3"), std::string("b\x01\x02\x03", 4));
  target.data()[0] = '#';
  target.data()[1] = '}';
  EXPECT_EQ(ask("x601000,2"), "b}\x03}]");
  EXPECT_EQ(ask("x0,4"), "E0e");
}

TEST_F(Packets, HugeReadsAreCappedByThePacketSize) {
  std::string r = ask("m401000,ffffffffffff");
  EXPECT_LE(r.size(), kDefaultPacketSize);
  EXPECT_EQ(r.substr(0, 8), "554889e5");
}

TEST_F(Packets, WritesMemoryInHexAndBinary) {
  EXPECT_EQ(ask("M601000,2:abcd"), "OK");
  EXPECT_EQ(target.data()[0], 0xab);
  EXPECT_EQ(target.data()[1], 0xcd);
  EXPECT_EQ(ask("X601002,3:}\x03}]z"), "OK");
  EXPECT_EQ(target.data()[2], '#');
  EXPECT_EQ(target.data()[3], '}');
  EXPECT_EQ(target.data()[4], 'z');
  EXPECT_EQ(ask("X601000,0:"), "OK");  // GDB's probe
  EXPECT_EQ(ask("M0,1:00"), "E0e");
}

TEST_F(Packets, SoftwareBreakpointStopsWithSwbreakWhenTheClientAsked) {
  EXPECT_EQ(ask("Z0,401010,1"), "OK");
  EXPECT_EQ(ask("c"), "T05thread:65;");  // client did not announce swbreak+
  ask("qSupported:swbreak+;hwbreak+");
  EXPECT_EQ(ask("Z0,401020,1"), "OK");
  EXPECT_EQ(ask("c"), "T05thread:65;swbreak:;");
  EXPECT_EQ(target.reg(kMainTid, x86_64::kRip), kCodeBase + 0x20);
  EXPECT_EQ(ask("z0,401020,1"), "OK");
  EXPECT_EQ(ask("z0,401020,1")[0], 'E');  // already gone
  EXPECT_EQ(ask("Z1,401030,1"), "OK");
  EXPECT_EQ(ask("vCont;c"), "T05thread:65;hwbreak:;");
}

TEST_F(Packets, WatchpointsReportTheirKindAndAddress) {
  EXPECT_EQ(ask("Z2,601008,4"), "OK");
  EXPECT_EQ(ask("c"), "T05thread:65;watch:601008;");
  EXPECT_EQ(ask("z2,601008,4"), "OK");
  EXPECT_EQ(ask("Z3,601010,8"), "OK");
  EXPECT_EQ(ask("c"), "T05thread:65;rwatch:601010;");
  EXPECT_EQ(ask("z3,601010,8"), "OK");
  EXPECT_EQ(ask("Z4,601018,1"), "OK");
  EXPECT_EQ(ask("c"), "T05thread:65;awatch:601018;");
  EXPECT_EQ(target.watchpoint_count(), 1u);
}

TEST_F(Packets, ForwardExecutionStopsAtTheEndOfHistory) {
  EXPECT_EQ(ask("c"), "T05thread:65;replaylog:end;");
  EXPECT_EQ(target.reg(kMainTid, x86_64::kRip), testing::kEndPc);
}

TEST_F(Packets, ReverseExecutionStopsAtBreakpointsAndAtTheStartOfHistory) {
  ask("qSupported:swbreak+");
  ask("c");  // to the end
  EXPECT_EQ(ask("Z0,401010,1"), "OK");
  EXPECT_EQ(ask("bc"), "T05thread:65;swbreak:;");
  EXPECT_EQ(target.reg(kMainTid, x86_64::kRip), kCodeBase + 0x10);
  EXPECT_EQ(ask("bs"), "T05thread:65;");
  EXPECT_EQ(target.reg(kMainTid, x86_64::kRip), kCodeBase + 0x0f);
  EXPECT_EQ(ask("bc"), "T05thread:65;replaylog:begin;");
  EXPECT_EQ(ask("bs"), "T05thread:65;replaylog:begin;");
  EXPECT_EQ(target.reverse_count, 3 + 1);
}

TEST_F(Packets, VContResolvesAnActionForEveryThread) {
  EXPECT_EQ(ask("vCont?"), "vCont;c;C;s;S");
  EXPECT_EQ(ask("vCont;s:66;c"), "T05thread:66;");
  ASSERT_EQ(target.last_request.threads.size(), 2u);
  EXPECT_EQ(target.last_request.threads[0].tid, kMainTid);
  EXPECT_EQ(target.last_request.threads[0].mode, ResumeMode::Continue);
  EXPECT_EQ(target.last_request.threads[1].mode, ResumeMode::Step);
  // The default action comes last even when written first; GDB's signal 0x0a is Linux SIGBUS.
  EXPECT_EQ(ask("vCont;c;S0a:p1.65"), "T05thread:65;");
  EXPECT_EQ(target.last_request.threads[0].mode, ResumeMode::Step);
  EXPECT_EQ(target.last_request.threads[0].signal, SIGBUS);
  EXPECT_EQ(target.last_request.threads[1].mode, ResumeMode::Continue);
  // A thread no action names stays stopped.
  ask("vCont;s:65");
  EXPECT_EQ(target.last_request.threads[1].mode, ResumeMode::Stay);
}

TEST_F(Packets, LegacyResumePackets) {
  EXPECT_EQ(ask("s"), "T05thread:65;");
  EXPECT_EQ(target.reg(kMainTid, x86_64::kRip), kCodeBase + 1);
  EXPECT_EQ(ask("S0b"), "T05thread:65;");
  EXPECT_EQ(target.last_request.threads[0].signal, SIGSEGV);
  EXPECT_EQ(ask("s401030"), "T05thread:65;");  // resume at an address
  EXPECT_EQ(target.reg(kMainTid, x86_64::kRip), kCodeBase + 0x31);
  EXPECT_EQ(ask("C0b;401000"), "T05thread:65;replaylog:end;");
}

TEST_F(Packets, TargetDescriptionReadsWholeAndInSlices) {
  const std::string& xml = x86_64_target_xml();
  std::string whole = ask("qXfer:features:read:target.xml:0,ffff");
  EXPECT_EQ(whole, "l" + xml);
  std::string assembled;
  for (size_t off = 0;; off += 100) {
    std::string r = ask("qXfer:features:read:target.xml:" + hex_number(off) + ",64");
    ASSERT_TRUE(r[0] == 'm' || r[0] == 'l');
    assembled += r.substr(1);
    if (r[0] == 'l') break;
  }
  EXPECT_EQ(assembled, xml);
  EXPECT_EQ(ask("qXfer:features:read:target.xml:ffffff,10"), "l");
}

TEST_F(Packets, XferObjectsFromTheTarget) {
  std::string auxv = ask("qXfer:auxv:read::0,1000");
  ASSERT_EQ(auxv[0], 'l');
  auto bytes = unescape_binary(auxv.substr(1));
  ASSERT_TRUE(bytes);
  ASSERT_EQ(bytes->size(), 48u);
  EXPECT_EQ((*bytes)[0], 6);
  EXPECT_EQ((*bytes)[16], '#');
  EXPECT_EQ(auxv.find('#'), std::string::npos);
  EXPECT_EQ(ask("qXfer:exec-file:read:65:0,1000"), "l/usr/bin/slsdbg-test-program");
  EXPECT_EQ(ask("qXfer:exec-file:read:65:0,4"), "m/usr");
  EXPECT_EQ(ask("qXfer:libraries-svr4:read::0,1000"), "l<library-list-svr4 version=\"1.0\"/>");
  std::string threads = ask("qXfer:threads:read::0,1000");
  EXPECT_NE(threads.find("<thread id=\"65\" name=\"main\"/>"), std::string::npos) << threads;
  EXPECT_NE(threads.find("<thread id=\"66\" name=\"worker\"/>"), std::string::npos);
}

TEST_F(Packets, StopNotesGoOutAsConsolePacketsBeforeTheStopReplyOnce) {
  target.stop_notes = "replay diverged\n";
  auto r = exchange("vCont;s:65");
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0], "O" + to_hex(std::string_view("replay diverged\n")));
  EXPECT_EQ(r[1].substr(0, 3), "T05");
  r = exchange("vCont;s:65");
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].substr(0, 3), "T05");
  target.stop_notes = "at the edge\n";
  r = exchange("?");
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0], "O" + to_hex(std::string_view("at the edge\n")));
}

TEST_F(Packets, MonitorCommandsPrintThroughConsolePackets) {
  auto r = exchange("qRcmd," + to_hex(std::string_view("help")));
  ASSERT_EQ(r.size(), 2u);
  ASSERT_EQ(r[0][0], 'O');
  EXPECT_EQ(*text_from_hex(r[0].substr(1)),
            "test target monitor commands:\n  help   this text\n  when   the current position\n");
  EXPECT_EQ(r[1], "OK");
  r = exchange("qRcmd," + to_hex(std::string_view("frob")));
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(*text_from_hex(r[0].substr(1)), "unknown monitor command 'frob'\n");
  EXPECT_EQ(r[1], "OK");  // not E01, which GDB follows with "Protocol error with Rcmd"
}

TEST_F(Packets, RrDialectSeeksAndAnswersWhen) {
  EXPECT_EQ(ask("vRun;;" + to_hex(std::string_view("c3"))), "T05thread:65;");
  EXPECT_EQ(target.last_seek.kind, HistorySeek::SeekKind::Checkpoint);
  EXPECT_EQ(target.last_seek.value, 3u);
  EXPECT_EQ(target.reg(kMainTid, x86_64::kRip), kCodeBase + 12);
  EXPECT_EQ(ask("qRRCmd:when:-1"), "Current event: 12");
  EXPECT_EQ(ask("vRun;;" + to_hex(std::string_view("t99"))), "T05thread:65;");
  EXPECT_EQ(target.last_seek.kind, HistorySeek::SeekKind::Ticks);
  EXPECT_EQ(ask("vRun;;" + to_hex(std::string_view("42"))), "T05thread:65;");
  EXPECT_EQ(target.last_seek.kind, HistorySeek::SeekKind::Event);
  EXPECT_EQ(target.last_seek.value, 42u);
  EXPECT_EQ(ask("vRun;"), "T05thread:65;");
  EXPECT_EQ(target.last_seek.kind, HistorySeek::SeekKind::Previous);
  // GDB's "run" may name the executable; a replay has only one, so it is ignored.
  EXPECT_EQ(ask("vRun;" + to_hex(std::string_view("/bin/prog")) + ";" + to_hex(std::string_view("c2"))),
            "T05thread:65;");
  EXPECT_EQ(target.last_seek.value, 2u);
  // No such checkpoint: the engine's message is printed, then the error reply.
  auto r = exchange("vRun;;" + to_hex(std::string_view("c99")));
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(*text_from_hex(r[0].substr(1)), "slsdbg: no checkpoint 99\n");
  EXPECT_EQ(r[1][0], 'E');
  EXPECT_EQ(ask("qRRCmd:frob:-1")[0], 'E');
}

TEST_F(Packets, NoAckModeIsRemembered) {
  EXPECT_FALSE(session.no_ack());
  EXPECT_EQ(ask("QStartNoAckMode"), "OK");
  EXPECT_TRUE(session.no_ack());
}

TEST_F(Packets, DetachAndKillEndTheSession) {
  EXPECT_EQ(ask("D"), "OK");
  EXPECT_TRUE(session.closed());
  EXPECT_EQ(target.detach_count, 1);
  EXPECT_EQ(ask("D;1"), "OK");
  EXPECT_EQ(ask("vKill;1"), "OK");
  EXPECT_EQ(target.kill_count, 1);
  EXPECT_EQ(ask("k"), "X09");  // LLDB waits for this; GDB does not read it
  EXPECT_EQ(target.kill_count, 2);
}

// A target with software breakpoints only: hwbreak+ is not advertised and Z1 is "not supported".
class SoftwareOnlyTarget final : public testing::MemoryTestTarget {
 public:
  bool supports(BreakpointType type) const override { return type == BreakpointType::Software; }
  bool supports(WatchType type) const override { return type == WatchType::Write; }
};

TEST(PartialCapabilities, AdvertisedAndAnsweredPerType) {
  SoftwareOnlyTarget target;
  Session session(target);
  NeverStop never;
  auto ask = [&](std::string_view p) { return last_reply(session, p); };
  std::string features = ask("qSupported");
  EXPECT_NE(features.find(";swbreak+"), std::string::npos);
  EXPECT_EQ(features.find("hwbreak+"), std::string::npos);
  EXPECT_EQ(ask("Z1,401000,1"), "");
  EXPECT_EQ(ask("Z0,401000,1"), "OK");
  EXPECT_EQ(ask("Z3,601000,4"), "");
  EXPECT_EQ(ask("Z2,601000,4"), "OK");
}

TEST(SmallPacketSize, RepliesStayWithinIt) {
  testing::MemoryTestTarget target;
  Session session(target, SessionOptions{256});
  NeverStop never;
  std::vector<std::string> r;
  session.handle_packet("qSupported", never, r);
  EXPECT_EQ(r.back().substr(0, 15), "PacketSize=100;");
  for (const char* p : {"m401000,1000", "x401000,1000", "qXfer:features:read:target.xml:0,ffff",
                        "qXfer:auxv:read::0,ffff", "g"}) {
    r.clear();
    session.handle_packet(p, never, r);
    ASSERT_EQ(r.size(), 1u) << p;
    // 'g' is the one reply that cannot be split; the client learns its size from target.xml.
    if (std::string_view(p) != "g") {
      EXPECT_LE(r[0].size(), 256u) << p;
    }
  }
  r.clear();
  session.handle_packet("qXfer:features:read:target.xml:0,ffff", never, r);
  EXPECT_EQ(r[0][0], 'm');  // more to come
  r.clear();
  session.handle_packet("qRcmd," + to_hex(std::string_view("help")), never, r);
  ASSERT_GT(r.size(), 1u);
  std::string text;
  for (size_t i = 0; i + 1 < r.size(); ++i) {
    EXPECT_LE(r[i].size(), 256u);
    text += *text_from_hex(r[i].substr(1));
  }
  EXPECT_EQ(text.substr(0, 29), "test target monitor commands:");
  EXPECT_EQ(r.back(), "OK");
}

TEST(StopReply, ExitAndDeathUseGdbNumbers) {
  ClientFeatures client;
  EXPECT_EQ(encode_stop_reply(StopReason::exited(kMainTid, 3), client), "W03");
  EXPECT_EQ(encode_stop_reply(StopReason::killed(kMainTid, SIGKILL), client), "X09");
  EXPECT_EQ(encode_stop_reply(StopReason::with_signal(kMainTid, SIGUSR1), client), "T1ethread:65;");
  EXPECT_EQ(encode_stop_reply(StopReason::history_end(kWorkerTid), client), "T05thread:66;replaylog:end;");
}

TEST(StopReply, ExecNamesTheNewProgramOnlyToAClientThatAskedForIt) {
  ClientFeatures client;
  EXPECT_EQ(encode_stop_reply(StopReason::exec(kMainTid, "/bin/ls"), client), "T05thread:65;");
  client.exec_events = true;
  EXPECT_EQ(encode_stop_reply(StopReason::exec(kMainTid, "/bin/ls"), client), "T05thread:65;exec:2f62696e2f6c73;");
}

TEST(StopReply, ForkStopsNameTheChildAsItsOwnProcess) {
  ClientFeatures client;
  client.pid = kMainTid.value;
  EXPECT_EQ(encode_stop_reply(StopReason::fork(kMainTid, StopKind::Fork, Tid(0x70)), client),
            "T05thread:p65.65;fork:p70.70;");
  EXPECT_EQ(encode_stop_reply(StopReason::fork(kMainTid, StopKind::VFork, Tid(0x71)), client),
            "T05thread:p65.65;vfork:p71.71;");
  EXPECT_EQ(encode_stop_reply(StopReason::fork(kMainTid, StopKind::VForkDone, Tid{}), client),
            "T05thread:p65.65;vforkdone:;");
}

// A process that forks child 0x70 at its next forward resume, when told to
// report forks.
class ForkingTarget final : public MemoryTestTarget, public ForkEvents {
 public:
  ForkEvents* fork_events() override { return this; }
  void report_forks(bool fork, bool vfork) override {
    forks = fork;
    vforks = vfork;
  }
  int32_t process_id() override { return kMainTid.value; }
  Result<StopReason> resume(const ResumeRequest& request, StopRequest& stop) override {
    if (forks) return StopReason::fork(kMainTid, StopKind::Fork, Tid(0x70));
    return MemoryTestTarget::resume(request, stop);
  }
  bool forks = false, vforks = false;
};

TEST(ForkPackets, ForksAreReportedOnlyToAMultiprocessClientThatFollowsThem) {
  ForkingTarget target;
  Session session(target);
  const std::string plain = last_reply(session, "qSupported:fork-events+;vfork-events+");
  EXPECT_EQ(plain.find("fork-events"), std::string::npos) << plain;
  EXPECT_FALSE(target.forks);
  const std::string multi = last_reply(session, "qSupported:multiprocess+;fork-events+;vfork-events+");
  EXPECT_TRUE(multi.ends_with(";fork-events+;vfork-events+")) << multi;
  EXPECT_TRUE(target.forks && target.vforks);
}

TEST(ForkPackets, TheChildsBreakpointRemovalAndDetachLeaveTheReplayAlone) {
  ForkingTarget target;
  Session session(target);
  auto ask = [&](std::string_view packet) { return last_reply(session, packet); };
  ask("qSupported:multiprocess+;fork-events+");
  EXPECT_EQ(ask("Z0,401010,1"), "OK");
  EXPECT_EQ(ask("vCont;c"), "T05thread:p65.65;fork:p70.70;");
  // GDB takes its breakpoints out of the child, then detaches it.
  EXPECT_EQ(ask("Hgp70.70"), "OK");
  EXPECT_EQ(ask("z0,401010,1"), "OK");
  EXPECT_EQ(target.breakpoint_count(), 1u);
  EXPECT_TRUE(ask("Z0,401020,1").starts_with("E.")) << "a breakpoint in the child is refused";
  EXPECT_EQ(ask("Hgp65.65"), "OK");
  EXPECT_EQ(ask("D;70"), "OK");
  EXPECT_FALSE(session.closed());
  EXPECT_EQ(target.detach_count, 0);
  EXPECT_EQ(ask("Hgp70.70"), "E03") << "a detached child is gone";
  EXPECT_EQ(ask("z0,401010,1"), "OK");
  EXPECT_EQ(target.breakpoint_count(), 0u) << "the parent's own removal reaches the target";
}

TEST(ForkPackets, DetachingTheParentFirstKeepsTheConnectionForTheChild) {
  ForkingTarget target;
  SessionOptions options;
  options.open_fork_child = [](int32_t) -> Result<std::unique_ptr<Target>> { return Error::msg("not followed"); };
  Session session(target, options);
  last_reply(session, "qSupported:multiprocess+;fork-events+");
  last_reply(session, "vCont;c");
  EXPECT_EQ(last_reply(session, "D;65"), "OK");
  EXPECT_FALSE(session.closed());
  EXPECT_EQ(last_reply(session, "Hgp70.70"), "OK");
  EXPECT_EQ(last_reply(session, "z0,401010,1"), "OK");
  EXPECT_FALSE(session.closed()) << "letting the child go does not follow it";
  EXPECT_EQ(last_reply(session, "D;70"), "OK");
  EXPECT_TRUE(session.closed());
}

// The replay of child 0x70 as GDB sees it after following it: its own
// process, one thread, fork's 0 in rax.
class ForkChildTarget final : public MemoryTestTarget {
 public:
  ForkChildTarget() { set_reg(kMainTid, x86_64::kRax, 0); }
  int32_t process_id() override { return 0x70; }
  Result<std::vector<ThreadInfo>> threads() override { return std::vector<ThreadInfo>{{Tid(0x70), "child"}}; }
  Status read_register(Tid t, int number, std::span<uint8_t> out) override {
    if (t != Tid(0x70)) return Error::msg("not the child's thread");
    return MemoryTestTarget::read_register(kMainTid, number, out);
  }
};

// follow-fork-mode child: GDB detaches the parent, then selects the child;
// the connection goes on as the child's replay.
TEST(ForkPackets, FollowingTheChildSwitchesTheConnectionToItsReplay) {
  ForkingTarget parent;
  ForkChildTarget* child = nullptr;
  int opened = 0;
  SessionOptions options;
  options.open_fork_child = [&](int32_t pid) -> Result<std::unique_ptr<Target>> {
    ++opened;
    if (pid != 0x70) return Error::msg("no such child");
    auto t = std::make_unique<ForkChildTarget>();
    child = t.get();
    return std::unique_ptr<Target>(std::move(t));
  };
  Session session(parent, options);
  auto ask = [&](std::string_view packet) { return last_reply(session, packet); };
  ask("qSupported:multiprocess+;fork-events+");
  EXPECT_EQ(ask("vCont;c"), "T05thread:p65.65;fork:p70.70;");
  // While the parent is attached, the child's registers are not served
  // (they would be the parent's): detach-on-fork off is refused by name.
  EXPECT_EQ(ask("Hgp70.70"), "OK");
  const std::string refused = ask("g");
  EXPECT_TRUE(refused.starts_with("E.the fork child 112 is not replayed")) << refused;
  EXPECT_NE(refused.find("slsdbg replay -p 112"), std::string::npos) << refused;
  EXPECT_EQ(ask("Hgp65.65"), "OK");
  EXPECT_EQ(ask("D;65"), "OK");
  EXPECT_EQ(parent.detach_count, 1);
  EXPECT_EQ(opened, 0);
  EXPECT_EQ(ask("Hgp70.70"), "OK");
  EXPECT_EQ(ask("z0,401010,1"), "OK");
  EXPECT_EQ(opened, 0) << "selecting the child and removing its breakpoints may precede its detach";
  EXPECT_EQ(ask("qC"), "QCp70.70");
  ASSERT_EQ(opened, 1);
  ASSERT_NE(child, nullptr);
  EXPECT_FALSE(session.closed());
  EXPECT_EQ(ask("p0"), "0000000000000000") << "the child's rax: fork returned 0 in it";
  const std::string stop = ask("vCont;c:p70.-1");
  EXPECT_TRUE(stop.starts_with("T05thread:p70.")) << "the child's replay resumes, its stops in its process: " << stop;
  EXPECT_EQ(child->resume_count, 1);
  EXPECT_EQ(parent.resume_count, 0) << "the parent's replay is left where it was";
  EXPECT_EQ(ask("D;70"), "OK");
  EXPECT_EQ(child->detach_count, 1);
  EXPECT_TRUE(session.closed());
}

TEST(ForkPackets, AChildThatCannotBeFollowedEndsTheConnectionNamingReplayP) {
  ForkingTarget parent;
  SessionOptions options;
  options.open_fork_child = [](int32_t) -> Result<std::unique_ptr<Target>> {
    return Error::msg("its recording starts at its exec");
  };
  Session session(parent, options);
  last_reply(session, "qSupported:multiprocess+;fork-events+");
  last_reply(session, "vCont;c");
  EXPECT_EQ(last_reply(session, "D;65"), "OK");
  EXPECT_EQ(last_reply(session, "Hgp70.70"), "OK");
  const std::string reply = last_reply(session, "g");
  EXPECT_EQ(reply,
            "E.following the fork child 112 is not served: its recording starts at its exec; slsdbg replay -p 112 "
            "debugs it");
  EXPECT_TRUE(session.closed());
}

TEST(Signals, LinuxAndGdbNumbersRoundTrip) {
  EXPECT_EQ(gdb_signal_from_host(SIGBUS), 10);
  EXPECT_EQ(gdb_signal_from_host(SIGUSR1), 30);
  EXPECT_EQ(gdb_signal_from_host(SIGCHLD), 20);
  EXPECT_EQ(gdb_signal_from_host(34), 46);  // SIGRTMIN+2
  EXPECT_EQ(gdb_signal_from_host(SIGSTKFLT), kGdbSignalUnknown);
  for (int sig = 1; sig <= 64; ++sig) {
    if (sig == SIGSTKFLT) continue;
    EXPECT_EQ(host_signal_from_gdb(gdb_signal_from_host(sig)), sig) << sig;
  }
}

// qGetTLSAddr: the thread is checked, the numbers are hex, the answer is the
// target's address in hex; without the capability the reply is empty.
class TlsTarget final : public MemoryTestTarget, public ThreadLocalStorage {
 public:
  TlsTarget() : MemoryTestTarget(testing::kAllCapabilities) {}
  ThreadLocalStorage* thread_local_storage() override { return this; }
  Result<RemoteAddr> tls_address(Tid thread, uint64_t offset, RemoteAddr lm) override {
    if (lm.value == 0) return Error::from_errno("no module", EINVAL);
    return RemoteAddr(0x7f0000000000ull + static_cast<uint64_t>(thread.value) * 0x1000 + offset);
  }
};

TEST(ThreadLocalStorage, QGetTlsAddrAsksTheTargetForTheThread) {
  TlsTarget target;
  Session session(target);
  auto ask = [&](std::string_view p) { return last_reply(session, p); };
  EXPECT_EQ(ask("qGetTLSAddr:" + hex_number(kWorkerTid.value) + ",10,7ffff7ffe2e0"),
            hex_number(0x7f0000000000ull + static_cast<uint64_t>(kWorkerTid.value) * 0x1000 + 0x10));
  EXPECT_EQ(ask("qGetTLSAddr:p1." + hex_number(kMainTid.value) + ",0,1"),
            hex_number(0x7f0000000000ull + static_cast<uint64_t>(kMainTid.value) * 0x1000));
  EXPECT_EQ(ask("qGetTLSAddr:7fffffff,10,1"), "E03");  // no such thread
  EXPECT_EQ(ask("qGetTLSAddr:zz,10,1"), "E16");
  EXPECT_EQ(ask("qGetTLSAddr:-1,10,1"), "E16");
  EXPECT_EQ(ask("qGetTLSAddr:" + hex_number(kMainTid.value) + ",10"), "E16");
  EXPECT_EQ(ask("qGetTLSAddr:" + hex_number(kMainTid.value) + ",10,0"), "E16");  // the target's error (EINVAL)
}

TEST_F(Packets, QGetTlsAddrWithoutTheCapabilityIsEmpty) {
  EXPECT_EQ(ask("qGetTLSAddr:" + hex_number(kMainTid.value) + ",10,1"), "");
}

}  // namespace
}  // namespace slsdbg::gdbserver
