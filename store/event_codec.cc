// Event record payloads (see event_codec.h). Field order is fixed and each
// field has a bit in the presence bitmap; adding a field means a new bit and a
// new kEventLogVersion.
#include "store/event_codec.h"

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

void encode_event(const Event& e, std::vector<uint8_t>& out) {
  const Event d;  // defaults
  uint16_t present = 0;
  if (e.tid != d.tid) present |= kTid;
  if (e.pc != d.pc) present |= kPc;
  if (e.syscall_no != d.syscall_no) present |= kSyscallNo;
  if (e.args != d.args) present |= kArgs;
  if (e.result != d.result) present |= kResult;
  if (!e.writes.empty()) present |= kWrites;
  if (e.signo != d.signo) present |= kSigno;
  if (!e.siginfo.empty()) present |= kSiginfo;
  if (e.tsc != d.tsc) present |= kTsc;
  if (e.tsc_aux != d.tsc_aux) present |= kTscAux;
  if (e.is_rdtscp) present |= kRdtscp;
  if (e.exit_status != d.exit_status) present |= kExitStatus;

  ByteWriter w;
  w.buffer().swap(out);
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
  w.buffer().swap(out);
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
