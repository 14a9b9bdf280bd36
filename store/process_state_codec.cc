// encode_process_state / decode_process_state: the versioned binary encoding
// of ProcessState stored in catalog column checkpoints.state. Layout in
// docs/formats/process-state.md. Register structs are stored raw with their
// size, so a blob from another architecture is rejected, not misread.
#include <string>

#include "store/byte_codec.h"
#include "store/format.h"
#include "store/process_state.h"

namespace slsdbg::store {

namespace {

void put_thread(ByteWriter& w, const ThreadState& t) {
  w.svarint(t.tid.value);
  w.bytes(&t.regs, sizeof t.regs);
  w.bytes(&t.fpregs, sizeof t.fpregs);
  w.bytes(t.xsave.data(), t.xsave.size());
  w.u64(t.sigmask);
  w.u64(t.sigpending);
  w.u8(t.restarted_syscall ? 1 : 0);
}

bool get_raw_struct(ByteReader& r, void* out, size_t size) {
  auto b = r.bytes(size);
  if (!r.ok() || b.size() != size) return false;
  std::memcpy(out, b.data(), size);
  return true;
}

}  // namespace

std::vector<uint8_t> encode_process_state(const ProcessState& s) {
  ByteWriter w;
  w.u32(kProcessStateMagic);
  w.u16(kProcessStateVersion);
  w.svarint(s.pid);
  w.varint(s.threads.size());
  for (const auto& t : s.threads) put_thread(w, t);
  w.varint(s.mappings.size());
  for (const auto& m : s.mappings) {
    w.varint(m.start);
    w.varint(m.end);
    w.varint(m.prot);
    w.varint(m.flags);
    w.varint(m.file_offset);
    w.varint(m.dev);
    w.varint(m.inode);
    w.str(m.path);
    w.str(m.build_id);
  }
  w.varint(s.fds.size());
  for (const auto& f : s.fds) {
    w.svarint(f.fd);
    w.svarint(f.flags);
    w.svarint(f.fd_flags);
    w.varint(f.offset);
    w.str(f.path);
  }
  for (const auto& a : s.sigactions) {
    w.varint(a.handler);
    w.varint(a.flags);
    w.varint(a.restorer);
    w.varint(a.mask);
  }
  w.u64(s.shared_sigpending);
  w.varint(s.brk_start);
  w.varint(s.brk_current);
  w.bytes(s.auxv.data(), s.auxv.size());
  w.str(s.exe);
  w.str(s.cwd);
  w.varint(s.cmdline.size());
  for (const auto& a : s.cmdline) w.str(a);
  w.bytes(s.fatal_siginfo.data(), s.fatal_siginfo.size());
  // Version 3: per thread, in thread order.
  for (const auto& t : s.threads) w.varint(t.clear_child_tid);
  w.svarint(s.running_tid);
  // Version 4: per thread, in thread order.
  for (const auto& t : s.threads) {
    w.varint(t.altstack_sp);
    w.varint(t.altstack_size);
    w.svarint(t.altstack_flags);
  }
  // Version 5: per thread, in thread order.
  for (const auto& t : s.threads) {
    w.varint(t.robust_list_head);
    w.varint(t.robust_list_len);
  }
  // Version 6: per fd, in fd order.
  for (const auto& f : s.fds) {
    w.str(f.object);
    w.str(f.queued);
  }
  return w.take();
}

Result<ProcessState> decode_process_state(const uint8_t* data, size_t size) {
  ByteReader r(data, size);
  uint32_t magic = r.u32();
  uint16_t version = r.u16();
  if (!r.ok() || magic != kProcessStateMagic) return Error::msg("process state: bad magic (not a process-state blob)");
  if (version < kOldestProcessStateVersion || version > kProcessStateVersion)
    return Error::msg("process state: encoding version " + std::to_string(version) + " is not supported (this build reads version " +
                      std::to_string(kProcessStateVersion) + ")");
  ProcessState s;
  s.pid = int32_t(r.svarint());
  uint64_t nthreads = r.count(8);
  for (uint64_t i = 0; i < nthreads && r.ok(); i++) {
    ThreadState t;
    t.tid = Tid(int32_t(r.svarint()));
    if (!get_raw_struct(r, &t.regs, sizeof t.regs) || !get_raw_struct(r, &t.fpregs, sizeof t.fpregs))
      return Error::msg("process state: thread " + std::to_string(i) + ": register block has the wrong size");
    t.xsave = r.bytes();
    t.sigmask = r.u64();
    t.sigpending = r.u64();
    t.restarted_syscall = r.u8() != 0;
    s.threads.push_back(std::move(t));
  }
  uint64_t nmaps = r.count(8);
  for (uint64_t i = 0; i < nmaps && r.ok(); i++) {
    Mapping m;
    m.start = r.varint();
    m.end = r.varint();
    m.prot = uint32_t(r.varint());
    m.flags = uint32_t(r.varint());
    m.file_offset = r.varint();
    m.dev = r.varint();
    m.inode = r.varint();
    m.path = r.str();
    if (version >= 2) m.build_id = r.str();
    s.mappings.push_back(std::move(m));
  }
  uint64_t nfds = r.count(5);
  for (uint64_t i = 0; i < nfds && r.ok(); i++) {
    FdEntry f;
    f.fd = int32_t(r.svarint());
    f.flags = int32_t(r.svarint());
    f.fd_flags = int32_t(r.svarint());
    f.offset = r.varint();
    f.path = r.str();
    s.fds.push_back(std::move(f));
  }
  for (auto& a : s.sigactions) {
    a.handler = r.varint();
    a.flags = r.varint();
    a.restorer = r.varint();
    a.mask = r.varint();
  }
  s.shared_sigpending = r.u64();
  s.brk_start = r.varint();
  s.brk_current = r.varint();
  s.auxv = r.bytes();
  s.exe = r.str();
  s.cwd = r.str();
  uint64_t nargs = r.count(1);
  for (uint64_t i = 0; i < nargs && r.ok(); i++) s.cmdline.push_back(r.str());
  if (version >= 2) s.fatal_siginfo = r.bytes();
  if (version >= 3) {
    for (auto& t : s.threads) t.clear_child_tid = r.varint();
    s.running_tid = int32_t(r.svarint());
  }
  if (version >= 4)
    for (auto& t : s.threads) {
      t.altstack_sp = r.varint();
      t.altstack_size = r.varint();
      t.altstack_flags = int32_t(r.svarint());
    }
  if (version >= 5)
    for (auto& t : s.threads) {
      t.robust_list_head = r.varint();
      t.robust_list_len = r.varint();
    }
  if (version >= 6)
    for (auto& f : s.fds) {
      f.object = r.str();
      f.queued = r.str();
    }
  if (!r.ok()) return Error::msg("process state: blob is truncated or malformed");
  if (!r.at_end()) return Error::msg("process state: " + std::to_string(r.remaining()) + " unexpected trailing bytes");
  return s;
}

}  // namespace slsdbg::store
