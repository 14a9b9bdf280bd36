// The syscall buffer's stub and memory, part of the injection area
// (inject.h): the recorder's in-process fast path for syscalls that cannot
// block (recorder/record/syscallbuf.h has the protocol).
//
//   kSysbufStubAddr      r-x  two entry pointers, then the stub code
//   kSysbufHeaderAddr    rw-  cursor, busy, enabled; fd table at +0x40
//   kSysbufEntriesAddr   rw-  the entries, kSysbufEntriesSize bytes
//
// Installed in record and replay alike; only the recorder sets `enabled`,
// so in replay every call takes the stub's trapped path.
#pragma once

#include <cstdint>
#include <span>

namespace slsdbg::process {

// The stub's version, stored in a recording made with the buffer (store
// summary key below, written when the recording is created): replay runs
// this build's stub under the recorded patched sites, so it refuses a
// recording of any other version. Bump it on any change to the code, the
// header or the entry format below; syscallbuf_stub_test pins it to a hash
// of the code.
inline constexpr uint32_t kSysbufStubVersion = 3;
inline constexpr const char* kSysbufStubSummaryKey = "syscall_buffer_stub";

inline constexpr uint64_t kSysbufStubAddr = 0x70002000;
inline constexpr uint64_t kSysbufHeaderAddr = 0x70003000;
inline constexpr uint64_t kSysbufCursorOffset = 0;    // bytes of committed entries
inline constexpr uint64_t kSysbufBusyOffset = 8;      // 1 while the stub fills an entry
inline constexpr uint64_t kSysbufEnabledOffset = 16;  // 0: every call takes the trapped path
inline constexpr uint64_t kSysbufTableOffset = 0x40;  // one byte per fd below 1024
inline constexpr uint64_t kSysbufTableSize = 1024;
inline constexpr uint8_t kSysbufFdRead = 1, kSysbufFdWrite = 2, kSysbufFdDir = 4;
inline constexpr uint64_t kSysbufEntriesAddr = 0x70004000;
inline constexpr uint64_t kSysbufEntriesSize = 0xfc000;  // up to the staging area
inline constexpr uint64_t kSysbufMaxRead = 0x40000;      // larger reads take the trapped path
inline constexpr uint64_t kSysbufEntryHeader = 80;       // nr, args[6], result, out_addr, out_len

// The two site shapes the stub serves; a patched site is `call *ptr` (7
// bytes, `ff 14 25` + ptr as a 32-bit absolute address), plus a nop for A.
inline constexpr uint64_t kSysbufPtrWide = kSysbufStubAddr;        // syscall; cmp $-4096, %rax (8 bytes)
inline constexpr uint64_t kSysbufPtrNarrow = kSysbufStubAddr + 8;  // syscall; cmp $0xfffff000, %eax (7 bytes)

struct SysbufStubLayout {
  uint64_t code_begin, code_end;  // [begin, end): a stopped pc here is inside the stub
  uint64_t fast;                  // the `syscall` the recorder's filter allows (ip = fast + 2)
  uint64_t slow;                  // the trapped `syscall`
  uint64_t movs;                  // the `rep movsb` copying the output bytes
  uint64_t ret_wide, ret_narrow;  // the two `ret`s back to a patched site (its two shapes)

  bool contains(uint64_t pc) const { return pc >= code_begin && pc < code_end; }
};

std::span<const uint8_t> sysbuf_stub_code();
SysbufStubLayout sysbuf_stub_layout();

}  // namespace slsdbg::process
