// SysbufEntries: the stub's entry format read back as the events the traced
// path logs; a framing error is caught at the drain, before any is logged;
// pooled buffers come back once the entries are gone.
#include "recorder/record/syscallbuf_entries.h"

#include <gtest/gtest.h>
#include <sys/syscall.h>

#include <cstring>

#include "process/syscallbuf_stub.h"

namespace slsdbg::recorder {
namespace {

// One entry as the stub writes it (process/syscallbuf_stub.h).
void put_entry(std::vector<uint8_t>& buf, long nr, std::array<uint64_t, 6> args, int64_t result, uint64_t out_addr,
               const std::vector<uint8_t>& out) {
  uint64_t w[10] = {uint64_t(nr), args[0], args[1], args[2], args[3], args[4], args[5], uint64_t(result), out_addr,
                    out.size()};
  const size_t at = buf.size();
  buf.resize(at + sizeof w + ((out.size() + 7) & ~size_t{7}), 0xee);
  std::memcpy(buf.data() + at, w, sizeof w);
  if (!out.empty()) std::memcpy(buf.data() + at + sizeof w, out.data(), out.size());
}

SysbufBytePool::Bytes pooled(const std::shared_ptr<SysbufBytePool>& pool, const std::vector<uint8_t>& bytes) {
  SysbufBytePool::Bytes b = pool->take();
  std::memcpy(b.get(), bytes.data(), bytes.size());
  return b;
}

TEST(SysbufEntries, LogsEachEntryAsTheTracedPathWould) {
  std::vector<uint8_t> buf;
  put_entry(buf, SYS_write, {3, 0x1000, 1, 7, 8, 9}, 1, 0, {});
  put_entry(buf, SYS_read, {4, 0x2000, 100, 0, 0, 0}, 11, 0x2000, {'h', 'e', 'l', 'l', 'o', ' ', 'w', 'o', 'r', 'l', 'd'});
  put_entry(buf, SYS_close, {4, 0, 0, 0, 0, 0}, 0, 0, {});
  auto pool = SysbufBytePool::create(4096);
  std::vector<long> seen;
  auto e = SysbufEntries::parse(77, pooled(pool, buf), buf.size(), [&](const SysbufEntryHead& h) { seen.push_back(h.nr); });
  ASSERT_TRUE(e.ok()) << e.error().message;
  EXPECT_EQ(seen, (std::vector<long>{SYS_write, SYS_read, SYS_close}));
  EXPECT_EQ(e->count(), 3u);
  EXPECT_EQ(e->bytes(), buf.size());

  std::vector<store::Event> got;
  ASSERT_TRUE(e->each([&](const store::Event& ev) {
                 got.push_back(ev);
                 return ok_status();
               }).ok());
  ASSERT_EQ(got.size(), 3u);
  const uint64_t pc = process::sysbuf_stub_layout().slow + 2;
  for (const store::Event& ev : got) {
    EXPECT_EQ(ev.kind, store::EventKind::Syscall);
    EXPECT_EQ(ev.tid, Tid(77));
    EXPECT_EQ(ev.pc, pc);
  }
  EXPECT_EQ(got[0].syscall_no, SYS_write);
  EXPECT_EQ(got[0].args, (std::array<uint64_t, 6>{3, 0x1000, 1, 7, 8, 9}));
  EXPECT_EQ(got[0].result, 1);
  EXPECT_TRUE(got[0].writes.empty());
  ASSERT_EQ(got[1].writes.size(), 1u);
  EXPECT_EQ(got[1].writes[0].addr, 0x2000u);
  EXPECT_EQ(got[1].writes[0].bytes, (std::vector<uint8_t>{'h', 'e', 'l', 'l', 'o', ' ', 'w', 'o', 'r', 'l', 'd'}));
  EXPECT_EQ(got[2].syscall_no, SYS_close);
  EXPECT_TRUE(got[2].writes.empty()) << "the read's output must not carry over to the next entry";
}

TEST(SysbufEntries, AnOutputPastTheEndIsCorrupt) {
  std::vector<uint8_t> buf;
  put_entry(buf, SYS_read, {4, 0x2000, 100, 0, 0, 0}, 16, 0x2000, std::vector<uint8_t>(16, 1));
  auto pool = SysbufBytePool::create(4096);
  int seen = 0;
  auto e = SysbufEntries::parse(1, pooled(pool, buf), buf.size() - 8, [&](const SysbufEntryHead&) { seen++; });
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.error().message.find("corrupt entry"), std::string::npos) << e.error().message;
  EXPECT_EQ(seen, 0);
}

TEST(SysbufBytePool, ABufferComesBackWhenTheLastEntriesGo) {
  auto pool = SysbufBytePool::create(4096);
  const uint8_t* first = nullptr;
  {
    SysbufBytePool::Bytes b = pool->take();
    first = b.get();
    SysbufBytePool::Bytes shared = b;  // a copy of the entries keeps it out
  }
  EXPECT_EQ(pool->take().get(), first);
  SysbufBytePool::Bytes kept = pool->take();
  pool.reset();  // the pool is gone first: the buffer is freed, not returned
  kept.reset();
}

}  // namespace
}  // namespace slsdbg::recorder
