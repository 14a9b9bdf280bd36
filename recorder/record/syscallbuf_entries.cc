#include "recorder/record/syscallbuf_entries.h"

#include <cstring>

#include "process/syscallbuf_stub.h"

namespace slsdbg::recorder {

namespace {

using process::kSysbufEntryHeader;

// An entry: {nr, args[6], result, out_addr, out_len} as 64-bit words, then
// out_len bytes padded to 8 (process/syscallbuf_stub.h).
struct Words {
  uint64_t w[10];
};
static_assert(sizeof(Words) == kSysbufEntryHeader);

Words words_at(const uint8_t* p) {
  Words w;
  std::memcpy(&w, p, sizeof w);
  return w;
}

uint64_t padded(uint64_t len) { return (len + 7) & ~uint64_t{7}; }

}  // namespace

// The pool keeps a few: a drain's buffer is back before the next drain
// unless the writer's thread is behind.
constexpr size_t kPoolKeeps = 8;

std::shared_ptr<SysbufBytePool> SysbufBytePool::create(size_t size) {
  return std::shared_ptr<SysbufBytePool>(new SysbufBytePool(size));
}

SysbufBytePool::Bytes SysbufBytePool::take() {
  std::unique_ptr<uint8_t[]> p;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!free_.empty()) {
      p = std::move(free_.back());
      free_.pop_back();
    }
  }
  if (!p) p.reset(new uint8_t[size_]);  // not zeroed: a miss touches only what is copied in
  std::weak_ptr<SysbufBytePool> pool = weak_from_this();
  return Bytes(p.release(), [pool](uint8_t* q) {
    if (std::shared_ptr<SysbufBytePool> back = pool.lock()) back->give(q);
    else delete[] q;
  });
}

void SysbufBytePool::give(uint8_t* p) {
  std::unique_ptr<uint8_t[]> owned(p);
  std::lock_guard<std::mutex> lock(mu_);
  if (free_.size() < kPoolKeeps) free_.push_back(std::move(owned));
}

Result<SysbufEntries> SysbufEntries::parse(pid_t pid, SysbufBytePool::Bytes bytes, size_t size,
                                           const std::function<void(const SysbufEntryHead&)>& seen) {
  SysbufEntries e;
  e.pid_ = pid;
  const uint8_t* data = bytes.get();
  size_t at = 0;
  while (at + kSysbufEntryHeader <= size) {
    const Words w = words_at(data + at);
    const uint64_t out_len = w.w[9];
    if (out_len > size - at - kSysbufEntryHeader) return Error::msg("syscall buffer: corrupt entry");
    SysbufEntryHead head{static_cast<long>(w.w[0]), {}, static_cast<int64_t>(w.w[7])};
    std::memcpy(head.args.data(), &w.w[1], sizeof head.args);
    seen(head);
    e.count_++;
    at += kSysbufEntryHeader + padded(out_len);
  }
  e.bytes_ = std::move(bytes);
  e.size_ = size;
  return e;
}

Status SysbufEntries::each(const std::function<Status(const store::Event&)>& log) const {
  // Where replay returns from the call: its stub takes the trapped path.
  const uint64_t pc = process::sysbuf_stub_layout().slow + 2;
  store::Event ev;
  ev.kind = store::EventKind::Syscall;
  ev.tid = Tid(pid_);
  ev.pc = pc;
  store::MemoryWrite out;
  const uint8_t* bytes = bytes_.get();
  size_t at = 0;
  for (size_t i = 0; i < count_; i++) {
    const Words w = words_at(bytes + at);
    const uint64_t out_len = w.w[9];
    ev.syscall_no = static_cast<int64_t>(w.w[0]);
    std::memcpy(ev.args.data(), &w.w[1], sizeof ev.args);
    ev.result = static_cast<int64_t>(w.w[7]);
    // The one MemoryWrite keeps its capacity from entry to entry.
    if (!ev.writes.empty()) {
      out = std::move(ev.writes.back());
      ev.writes.clear();
    }
    if (out_len) {
      const uint8_t* data = bytes + at + kSysbufEntryHeader;
      out.addr = w.w[8];
      out.bytes.assign(data, data + out_len);
      ev.writes.push_back(std::move(out));
    }
    TRY(log(ev));
    at += kSysbufEntryHeader + padded(out_len);
  }
  return ok_status();
}

}  // namespace slsdbg::recorder
