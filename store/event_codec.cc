// Event record payloads (see event_codec.h). Field order is fixed and each
// field has a bit in the presence bitmap; adding a field means a new bit and a
// new kEventLogVersion.
#include "store/event_codec.h"

#include <cstring>
#include <string>

#include "store/byte_codec.h"

namespace slsdbg::store {

namespace {

enum FieldBit : uint16_t {
  kTid = 1 << 0,
  kPc = 1 << 1,
  kSyscallNo = 1 << 2,
  kArgs = 1 << 3,
  kResult = 1 << 4,
  kWrites = 1 << 5,
  kSigno = 1 << 6,
  kSiginfo = 1 << 7,
  kTsc = 1 << 8,
  kTscAux = 1 << 9,
  kRdtscp = 1 << 10,
  kExitStatus = 1 << 11,
  kAllFields = (1 << 12) - 1,
};

bool valid_kind(uint8_t k) { return k >= uint8_t(EventKind::Syscall) && k <= uint8_t(EventKind::ThreadSwitch); }

}  // namespace

namespace {

// Appends to a vector through a small stack buffer: the event log encodes
// every buffered syscall (a million one-byte writes is a million events),
// and a push_back per varint byte was the writer thread's largest cost.
class BufferedWriter {
 public:
  explicit BufferedWriter(std::vector<uint8_t>& out) : out_(out) {}
  ~BufferedWriter() { flush(); }
  void u8(uint8_t v) {
    room(1);
    buf_[n_++] = v;
  }
  void u16(uint16_t v) {
    room(2);
    std::memcpy(buf_ + n_, &v, 2);
    n_ += 2;
  }
  void varint(uint64_t v) {
    room(10);
    // Through a local pointer: a store through buf_[n_] may alias n_, which
    // the compiler would reload after every byte.
    uint8_t* p = buf_ + n_;
    while (v >= 0x80) {
      *p++ = uint8_t(v) | 0x80;
      v >>= 7;
    }
    *p++ = uint8_t(v);
    n_ = size_t(p - buf_);
  }
  void svarint(int64_t v) { varint((uint64_t(v) << 1) ^ uint64_t(v >> 63)); }  // zigzag
  void bytes(const uint8_t* p, size_t n) {
    varint(n);
    if (n <= sizeof buf_ - n_) {
      std::memcpy(buf_ + n_, p, n);
      n_ += n;
      return;
    }
    flush();
    out_.insert(out_.end(), p, p + n);
  }

 private:
  void room(size_t n) {
    if (n > sizeof buf_ - n_) flush();
  }
  void flush() {
    out_.insert(out_.end(), buf_, buf_ + n_);
    n_ = 0;
  }
  std::vector<uint8_t>& out_;
  uint8_t buf_[256];
  size_t n_ = 0;
};

}  // namespace

void encode_event(const Event& e, std::vector<uint8_t>& out) {
  static const Event d;  // defaults
  uint64_t any_arg = 0;
  for (uint64_t a : e.args) any_arg |= a;
  static_assert(sizeof d.args == 6 * sizeof(uint64_t));
  uint16_t present = 0;
  if (e.tid != d.tid) present |= kTid;
  if (e.pc != d.pc) present |= kPc;
  if (e.syscall_no != d.syscall_no) present |= kSyscallNo;
  if (any_arg != 0) present |= kArgs;  // the default args are zeros
  if (e.result != d.result) present |= kResult;
  if (!e.writes.empty()) present |= kWrites;
  if (e.signo != d.signo) present |= kSigno;
  if (!e.siginfo.empty()) present |= kSiginfo;
  if (e.tsc != d.tsc) present |= kTsc;
  if (e.tsc_aux != d.tsc_aux) present |= kTscAux;
  if (e.is_rdtscp) present |= kRdtscp;
  if (e.exit_status != d.exit_status) present |= kExitStatus;

  BufferedWriter w(out);
  w.u8(uint8_t(e.kind));
  w.u16(present);
  if (present & kTid) w.svarint(e.tid.value);
  if (present & kPc) w.varint(e.pc);
  if (present & kSyscallNo) w.svarint(e.syscall_no);
  if (present & kArgs)
    for (uint64_t a : e.args) w.varint(a);
  if (present & kResult) w.svarint(e.result);
  if (present & kWrites) {
    w.varint(e.writes.size());
    for (const auto& mw : e.writes) {
      w.varint(mw.addr);
      w.bytes(mw.bytes.data(), mw.bytes.size());
    }
  }
  if (present & kSigno) w.svarint(e.signo);
  if (present & kSiginfo) w.bytes(e.siginfo.data(), e.siginfo.size());
  if (present & kTsc) w.varint(e.tsc);
  if (present & kTscAux) w.varint(e.tsc_aux);
  if (present & kExitStatus) w.svarint(e.exit_status);
}

Result<Event> decode_event(const uint8_t* data, size_t size) {
  ByteReader r(data, size);
  Event e;
  uint8_t kind = r.u8();
  uint16_t present = r.u16();
  if (!r.ok()) return Error::msg("event record is truncated");
  if (!valid_kind(kind)) return Error::msg("event record has unknown kind " + std::to_string(kind));
  if (present & ~uint16_t(kAllFields)) return Error::msg("event record has unknown fields");
  e.kind = EventKind(kind);
  if (present & kTid) e.tid = Tid(int32_t(r.svarint()));
  if (present & kPc) e.pc = r.varint();
  if (present & kSyscallNo) e.syscall_no = r.svarint();
  if (present & kArgs)
    for (auto& a : e.args) a = r.varint();
  if (present & kResult) e.result = r.svarint();
  if (present & kWrites) {
    uint64_t n = r.count(2);
    for (uint64_t i = 0; i < n && r.ok(); i++) {
      MemoryWrite mw;
      mw.addr = r.varint();
      mw.bytes = r.bytes();
      e.writes.push_back(std::move(mw));
    }
  }
  if (present & kSigno) e.signo = int32_t(r.svarint());
  if (present & kSiginfo) e.siginfo = r.bytes();
  if (present & kTsc) e.tsc = r.varint();
  if (present & kTscAux) e.tsc_aux = uint32_t(r.varint());
  e.is_rdtscp = (present & kRdtscp) != 0;
  if (present & kExitStatus) e.exit_status = int32_t(r.svarint());
  if (!r.ok() || !r.at_end()) return Error::msg("event record is malformed");
  return e;
}

}  // namespace slsdbg::store
