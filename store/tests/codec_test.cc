// Checks the process-state encoding round-trips every field, that its zstd
// column form round-trips, and that truncated, garbage or other-version blobs
// and event records are errors, not crashes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>

#include "store/byte_codec.h"
#include "store/event_codec.h"
#include "store/format.h"
#include "store/process_state.h"
#include "store/state_compression.h"

namespace slsdbg::store {
namespace {

ProcessState sample_state() {
  ProcessState s;
  s.pid = 4242;
  for (int t = 0; t < 3; t++) {
    ThreadState th;
    th.tid = Tid(4242 + t);
    th.regs.rip = 0x401000 + t;
    th.regs.rsp = 0x7ffc0000;
    th.regs.fs_base = 0x7f00000000 + t;
    th.fpregs.mxcsr = 0x1f80;
    th.xsave.assign(2688, uint8_t(t));
    th.sigmask = 1ull << t;
    th.sigpending = 2;
    th.restarted_syscall = t == 1;
    th.clear_child_tid = t == 0 ? 0 : 0x7f0000002d0 + uint64_t(t);
    s.threads.push_back(th);
  }
  s.mappings.push_back(Mapping{0x400000, 0x401000, 5, flag(MappingFlags::None), 0, 0x803, 1234, "/bin/x"});
  s.mappings.push_back(Mapping{0x7ffc0000, 0x7ffe0000, 3, flag(MappingFlags::Stack) | flag(MappingFlags::Anonymous), 0, 0, 0, "[stack]"});
  s.fds.push_back(FdEntry{0, 2, 0, 0, "/dev/null"});
  s.fds.push_back(FdEntry{3, 0x800, 1, 77, "pipe:[123]"});
  s.sigactions[10] = SignalAction{0x401234, 0x4000000, 0x401500, 0xff};
  s.shared_sigpending = 1ull << 13;
  s.brk_start = 0x600000;
  s.brk_current = 0x621000;
  s.auxv = {1, 2, 3, 4, 5, 6, 7, 8};
  s.exe = "/bin/x";
  s.cwd = "/home";
  s.cmdline = {"x", "-v", ""};
  s.running_tid = 4243;
  return s;
}

TEST(StoreCodec, ProcessStateRoundTrips) {
  ProcessState s = sample_state();
  s.threads[1].altstack_sp = 0x7f00000a0000;  // a Go M's signal stack
  s.threads[1].altstack_size = 32768;
  s.threads[1].altstack_flags = 0;
  s.threads[2].robust_list_head = 0x7f00000b06e0;  // glibc's struct pthread.robust_head
  s.threads[2].robust_list_len = 24;
  std::vector<uint8_t> blob = encode_process_state(s);
  auto d = decode_process_state(blob.data(), blob.size());
  ASSERT_TRUE(d.ok()) << d.error().message;
  EXPECT_EQ(d->pid, s.pid);
  ASSERT_EQ(d->threads.size(), 3u);
  for (int t = 0; t < 3; t++) {
    EXPECT_EQ(0, std::memcmp(&d->threads[t].regs, &s.threads[t].regs, sizeof s.threads[t].regs));
    EXPECT_EQ(0, std::memcmp(&d->threads[t].fpregs, &s.threads[t].fpregs, sizeof s.threads[t].fpregs));
    EXPECT_EQ(d->threads[t].xsave, s.threads[t].xsave);
    EXPECT_EQ(d->threads[t].tid, s.threads[t].tid);
    EXPECT_EQ(d->threads[t].sigmask, s.threads[t].sigmask);
    EXPECT_EQ(d->threads[t].restarted_syscall, s.threads[t].restarted_syscall);
    EXPECT_EQ(d->threads[t].clear_child_tid, s.threads[t].clear_child_tid);
    EXPECT_EQ(d->threads[t].altstack_sp, s.threads[t].altstack_sp);
    EXPECT_EQ(d->threads[t].altstack_size, s.threads[t].altstack_size);
    EXPECT_EQ(d->threads[t].altstack_flags, s.threads[t].altstack_flags);
    EXPECT_EQ(d->threads[t].robust_list_head, s.threads[t].robust_list_head);
    EXPECT_EQ(d->threads[t].robust_list_len, s.threads[t].robust_list_len);
  }
  EXPECT_EQ(d->running_tid, s.running_tid);
  ASSERT_EQ(d->mappings.size(), 2u);
  EXPECT_EQ(d->mappings[1].path, "[stack]");
  EXPECT_EQ(d->mappings[1].flags, s.mappings[1].flags);
  EXPECT_EQ(d->mappings[0].inode, 1234u);
  ASSERT_EQ(d->fds.size(), 2u);
  EXPECT_EQ(d->fds[1].path, "pipe:[123]");
  EXPECT_EQ(d->fds[1].offset, 77u);
  EXPECT_EQ(d->sigactions[10].handler, 0x401234u);
  EXPECT_EQ(d->sigactions[10].restorer, 0x401500u);
  EXPECT_EQ(d->shared_sigpending, s.shared_sigpending);
  EXPECT_EQ(d->brk_current, s.brk_current);
  EXPECT_EQ(d->auxv, s.auxv);
  EXPECT_EQ(d->cmdline, s.cmdline);
  EXPECT_EQ(d->cwd, "/home");
}

// Encoding 2: build-ids of file mappings and a crash checkpoint's siginfo.
TEST(StoreCodec, BuildIdsAndFatalSiginfoRoundTrip) {
  ProcessState s = sample_state();
  s.mappings[0].build_id = "0123456789abcdef";
  s.fatal_siginfo.assign(128, 0);
  s.fatal_siginfo[0] = 11;  // si_signo: SIGSEGV
  std::vector<uint8_t> blob = encode_process_state(s);
  auto d = decode_process_state(blob.data(), blob.size());
  ASSERT_TRUE(d.ok()) << d.error().message;
  EXPECT_EQ(d->mappings[0].build_id, "0123456789abcdef");
  EXPECT_EQ(d->mappings[1].build_id, "");
  EXPECT_EQ(d->fatal_siginfo, s.fatal_siginfo);
}

// The version 6 tail of a state whose fds have no object and no queued
// bytes: two empty strings (a 0 length each) per fd.
void drop_fd_objects(std::vector<uint8_t>& blob, size_t fds) {
  for (size_t i = 0; i < 2 * fds; i++) blob.pop_back();
}

// The version 5 and 6 tails of a state whose threads have no robust list: 2
// one-byte varints per thread before the above (sample_state has 2 fds).
void drop_robust_lists(std::vector<uint8_t>& blob, size_t threads) {
  drop_fd_objects(blob, 2);
  for (size_t i = 0; i < 2 * threads; i++) blob.pop_back();
}

// Encoding 6: an anonymous-inode descriptor's own fdinfo lines.
TEST(StoreCodec, FdObjectsRoundTrip) {
  ProcessState s = sample_state();
  s.fds.push_back(FdEntry{9, 02, 1, 0, "anon_inode:[eventpoll]", "tfd:       11 events:       19 data:  b\n", ""});
  s.fds[1].queued = std::string("a\0b", 3);  // the pipe's bytes, a NUL among them
  std::vector<uint8_t> blob = encode_process_state(s);
  auto d = decode_process_state(blob.data(), blob.size());
  ASSERT_TRUE(d.ok()) << d.error().message;
  ASSERT_EQ(d->fds.size(), 3u);
  EXPECT_EQ(d->fds[2].object, s.fds[2].object);
  EXPECT_EQ(d->fds[0].object, "");
  EXPECT_EQ(d->fds[1].queued, s.fds[1].queued);
}

TEST(StoreCodec, Version5ProcessStateStillDecodes) {
  ProcessState s = sample_state();
  s.threads[2].robust_list_head = 0x7f00000b06e0;
  std::vector<uint8_t> blob = encode_process_state(s);
  drop_fd_objects(blob, s.fds.size());
  blob[4] = 5;  // version field
  auto d = decode_process_state(blob.data(), blob.size());
  ASSERT_TRUE(d.ok()) << d.error().message;
  EXPECT_EQ(d->threads[2].robust_list_head, 0x7f00000b06e0u);
  EXPECT_EQ(d->fds[1].object, "");
}

// The version 4 and 5 tails of a state whose threads have no alternate stack
// and no robust list: 3 one-byte varints per thread before the above.
void drop_altstacks(std::vector<uint8_t>& blob, size_t threads) {
  drop_robust_lists(blob, threads);
  for (size_t i = 0; i < 3 * threads; i++) blob.pop_back();
}

TEST(StoreCodec, Version4ProcessStateStillDecodes) {
  ProcessState s = sample_state();
  s.threads[1].altstack_flags = 0;
  std::vector<uint8_t> blob = encode_process_state(s);
  drop_robust_lists(blob, s.threads.size());
  blob[4] = 4;  // version field
  auto d = decode_process_state(blob.data(), blob.size());
  ASSERT_TRUE(d.ok()) << d.error().message;
  ASSERT_EQ(d->threads.size(), 3u);
  EXPECT_EQ(d->threads[1].altstack_flags, 0);
  EXPECT_EQ(d->threads[1].robust_list_head, 0u);  // none known
}

TEST(StoreCodec, Version3ProcessStateStillDecodes) {
  ProcessState s = sample_state();
  std::vector<uint8_t> blob = encode_process_state(s);
  drop_altstacks(blob, s.threads.size());
  blob[4] = 3;  // version field
  auto d = decode_process_state(blob.data(), blob.size());
  ASSERT_TRUE(d.ok()) << d.error().message;
  ASSERT_EQ(d->threads.size(), 3u);
  EXPECT_EQ(d->threads[1].clear_child_tid, s.threads[1].clear_child_tid);
  EXPECT_EQ(d->threads[1].altstack_flags, 2);  // SS_DISABLE: none known
}

// Versions 1 and 2 still decode. Without clear_child_tid and running_tid,
// version 3 ends in one 0 per thread and a 0 (running_tid), version 2 before
// them in the empty siginfo, and version 1 lacks both.
TEST(StoreCodec, Version2ProcessStateStillDecodes) {
  ProcessState s = sample_state();
  for (auto& t : s.threads) t.clear_child_tid = 0;
  s.running_tid = 0;
  std::vector<uint8_t> blob = encode_process_state(s);
  drop_altstacks(blob, s.threads.size());
  for (size_t i = 0; i < s.threads.size() + 1; i++) blob.pop_back();
  blob[4] = 2;  // version field
  auto d = decode_process_state(blob.data(), blob.size());
  ASSERT_TRUE(d.ok()) << d.error().message;
  ASSERT_EQ(d->threads.size(), 3u);
  EXPECT_EQ(d->threads[2].clear_child_tid, 0u);
  EXPECT_EQ(d->cmdline, s.cmdline);
}

TEST(StoreCodec, Version1ProcessStateStillDecodes) {
  ProcessState s = sample_state();
  s.mappings.clear();
  for (auto& t : s.threads) t.clear_child_tid = 0;
  s.running_tid = 0;
  std::vector<uint8_t> blob = encode_process_state(s);
  drop_altstacks(blob, s.threads.size());
  for (size_t i = 0; i < s.threads.size() + 1; i++) blob.pop_back();
  ASSERT_EQ(blob.back(), 0);  // the empty fatal_siginfo
  blob.pop_back();
  blob[4] = 1;  // version field
  auto d = decode_process_state(blob.data(), blob.size());
  ASSERT_TRUE(d.ok()) << d.error().message;
  EXPECT_EQ(d->cmdline, s.cmdline);
  EXPECT_TRUE(d->fatal_siginfo.empty());
}

TEST(StoreCodec, BadProcessStateBlobsAreErrors) {
  std::vector<uint8_t> blob = encode_process_state(sample_state());
  for (size_t cut = 0; cut < blob.size(); cut += 97) {
    auto d = decode_process_state(blob.data(), cut);
    EXPECT_FALSE(d.ok()) << "truncated at " << cut;
  }
  std::vector<uint8_t> garbage(500, 0xff);
  EXPECT_FALSE(decode_process_state(garbage.data(), garbage.size()).ok());
  std::vector<uint8_t> other = blob;
  other[4] = 19;  // version field
  auto v = decode_process_state(other.data(), other.size());
  ASSERT_FALSE(v.ok());
  EXPECT_NE(v.error().message.find("version 19"), std::string::npos) << v.error().message;
  std::vector<uint8_t> trailing = blob;
  trailing.push_back(0);
  EXPECT_FALSE(decode_process_state(trailing.data(), trailing.size()).ok());
}

TEST(StoreCodec, StateColumnIsCompressedAndGarbageIsAnError) {
  std::vector<uint8_t> raw = encode_process_state(sample_state());
  auto frame = compress_state(raw);
  ASSERT_TRUE(frame.ok()) << frame.error().message;
  EXPECT_LT(frame->size() * 4, raw.size()) << "xsave areas of zeros-like data should compress well";
  auto back = decompress_state(*frame);
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(*back, raw);
  std::vector<uint8_t> garbage(100, 0x5a);
  EXPECT_FALSE(decompress_state(garbage).ok());
  std::vector<uint8_t> cut(frame->begin(), frame->begin() + long(frame->size() / 2));
  EXPECT_FALSE(decompress_state(cut).ok());
}

TEST(StoreCodec, EventRecordsRoundTripAndRejectGarbage) {
  Event e;
  e.kind = EventKind::Syscall;
  e.tid = Tid(7);
  e.syscall_no = 0;
  e.args = {~0ull, 1, 2, 3, 4, 5};
  e.result = -14;
  e.writes.push_back(MemoryWrite{0x1000, {1, 2, 3}});
  std::vector<uint8_t> out;
  encode_event(e, out);
  auto d = decode_event(out.data(), out.size());
  ASSERT_TRUE(d.ok()) << d.error().message;
  EXPECT_EQ(d->syscall_no, 0);
  EXPECT_EQ(d->args, e.args);
  EXPECT_EQ(d->result, -14);
  ASSERT_EQ(d->writes.size(), 1u);
  EXPECT_EQ(d->writes[0].bytes, e.writes[0].bytes);
  Event empty;
  out.clear();
  encode_event(empty, out);
  EXPECT_EQ(out.size(), 3u) << "an event with default fields is kind + bitmap only";
  for (size_t cut = 0; cut + 1 < out.size(); cut++) EXPECT_FALSE(decode_event(out.data(), cut).ok());
  std::vector<uint8_t> bad_kind = {99, 0, 0};
  EXPECT_FALSE(decode_event(bad_kind.data(), bad_kind.size()).ok());
}

// The format is pinned byte for byte (the encoder was rewritten for speed
// and must write what older builds read), appending after what `out` holds;
// a write larger than the encoder's stack buffer comes out whole.
TEST(StoreCodec, EventRecordBytesArePinned) {
  Event e;
  e.kind = EventKind::Syscall;
  e.tid = Tid(4242);
  e.pc = 0x70002370;
  e.syscall_no = 1;
  e.args = {3, 0x55d0c0a01004, 1, 0, ~0ull, 0};
  e.result = 1;
  e.writes.push_back(MemoryWrite{0x2000, {0xab, 0xcd}});
  std::vector<uint8_t> out = {9};
  encode_event(e, out);
  const std::vector<uint8_t> want = {
      0x09, 0x01, 0x3f, 0x00, 0xa4, 0x42, 0xf0, 0xc6, 0x80, 0x80, 0x07, 0x02, 0x03, 0x84, 0xa0, 0x80, 0x85, 0x8c, 0xba, 0x15,
      0x01, 0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 0x00, 0x02, 0x01, 0x80, 0x40, 0x02, 0xab, 0xcd};
  EXPECT_EQ(out, want);

  Event big;
  big.writes.push_back(MemoryWrite{1, std::vector<uint8_t>(1000, 0x5a)});
  big.siginfo.assign(128, 0x11);
  out.clear();
  encode_event(big, out);
  // kind, bitmap (writes, siginfo), 1 write at 1 of 1000 (varint e8 07), then the siginfo.
  const std::vector<uint8_t> head = {0x01, 0xa0, 0x00, 0x01, 0x01, 0xe8, 0x07};
  ASSERT_EQ(out.size(), head.size() + 1000 + 2 + 128);
  EXPECT_TRUE(std::equal(head.begin(), head.end(), out.begin()));
  EXPECT_EQ(std::count(out.begin() + 7, out.begin() + 1007, 0x5a), 1000);
  EXPECT_EQ(out[1007], 0x80);
  EXPECT_EQ(out[1008], 0x01);
  EXPECT_EQ(std::count(out.begin() + 1009, out.end(), 0x11), 128);
  auto d = decode_event(out.data(), out.size());
  ASSERT_TRUE(d.ok()) << d.error().message;
  EXPECT_EQ(d->writes.at(0).bytes.size(), 1000u);
  EXPECT_EQ(d->siginfo.size(), 128u);
}

}  // namespace
}  // namespace slsdbg::store
