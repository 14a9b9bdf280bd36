// On-disk constants of a recording: magic numbers, format versions and the
// geometry of blocks and tree nodes. Every on-disk object kind starts with (or
// is identified by) a magic number declared here; docs/formats/ describes each.
// Compatibility: bump kRecordingFormatVersion on ANY change to a format below.
#pragma once

#include <cstdint>

namespace slsdbg::store {

// catalog.db: PRAGMA user_version and meta('format_version'). Version 2 adds
// checkpoints.cpu_since_event_ns; version 1 recordings stay readable (no hint).
// Version 3 adds the "crash" checkpoint reason and process state encoding 2
// (the fatal signal's siginfo); older recordings stay readable.
// Version 4 adds event kind 6 (ThreadSwitch, `record --threads`) and the
// meta keys `threads` and `summary.KEY`; older recordings stay readable.
// Version 5 adds process state encoding 3 (each thread's clear_child_tid,
// which restore of a multithreaded checkpoint needs); older stay readable.
// Version 6 adds the meta keys `pid`, `parent_pid` and `origin`, and the
// directory members/PID/ (members.h): one complete recording per child
// process of the tree; older recordings read as a tree of one.
// Version 6 also adds REC/files (store/kept_files.h): a page of a private file
// mapping whose file is kept there reads as the file's bytes when the tree
// has no entry for it, and zero pages there are stored as blocks.
// Version 7 adds process state encoding 4 (each thread's sigaltstack, which
// restore needs for a handler that runs on it); older stay readable.
// Version 8 adds process state encoding 5 (each thread's robust futex list,
// which restore gives back so that a dying holder's mutex reads as
// EOWNERDEAD); older stay readable.
// Version 9 adds process state encoding 6 (each anonymous-inode descriptor's
// own fdinfo lines, which restore creates eventfds, epolls, timerfds and
// signalfds again from); older stay readable.
inline constexpr uint32_t kRecordingFormatVersion = 9;
inline constexpr uint32_t kOldestReadableFormatVersion = 1;

inline constexpr uint64_t kBlockSize = 4096;

// Extent files pages/NNNNNN.ext: block 0 is the header, blocks 1.. hold data
// pages and tree nodes.
inline constexpr char kExtentMagic[8] = {'S', 'L', 'S', 'E', 'X', 'T', '0', '1'};
inline constexpr uint32_t kExtentVersion = 1;
inline constexpr uint64_t kBlocksPerExtent = 1ull << 18;        // 1 GiB per file (the maximum)
inline constexpr uint64_t kMinBlocksPerExtent = 16;             // smaller extents: tests only
// Each extent file is preallocated (fallocate) ahead of the writes: first
// 256 KiB, then as much again as it already has, up to 16 MiB a step, so a
// tiny recording stays small on disk and a big one still grows in large
// steps. Only the file size changes: readers never depend on it.
inline constexpr uint64_t kFirstPreallocateBlocks = 64;         // 256 KiB
inline constexpr uint64_t kPreallocateBlocks = 4096;            // 16 MiB, the largest step

// Blocks to add to an extent file that has PREALLOCATED of CAPACITY blocks.
inline constexpr uint64_t next_preallocation(uint64_t preallocated, uint64_t capacity) {
  uint64_t step = preallocated < kFirstPreallocateBlocks ? kFirstPreallocateBlocks - preallocated
                  : preallocated > kPreallocateBlocks    ? kPreallocateBlocks
                                                         : preallocated;
  return preallocated >= capacity ? 0 : (step < capacity - preallocated ? step : capacity - preallocated);
}

// A block reference: extent number in the high 32 bits, slot in the low 32.
// Slot 0 is the header, so 0 never names a block and means "empty".
using BlockRef = uint64_t;
inline constexpr BlockRef kNoBlock = 0;
inline constexpr BlockRef make_ref(uint32_t extent, uint32_t slot) { return (uint64_t(extent) << 32) | slot; }
inline constexpr uint32_t ref_extent(BlockRef r) { return uint32_t(r >> 32); }
inline constexpr uint32_t ref_slot(BlockRef r) { return uint32_t(r); }

// Copy-on-write radix tree over virtual page numbers (48-bit addresses, so
// 36-bit VPNs): 5 levels of 8 bits except the root, which uses 4.
inline constexpr int kTreeLevels = 5;
inline constexpr int kFanoutBits = 8;
inline constexpr int kFanout = 1 << kFanoutBits;  // 256 entries of 16 bytes = one block
inline constexpr uint64_t kMaxAddress = 1ull << 48;

// Node checksums are xxh3-64 seeded with kNodeSeed + level, so a data block
// (checksummed unseeded) can never pass as a tree node and a leaf never as an
// inner node.
inline constexpr uint64_t kNodeSeed = 0x534c53545245454eull;  // "SLSTREEN"

// Event logs events/NNNNNN.log.
inline constexpr char kEventLogMagic[8] = {'S', 'L', 'S', 'E', 'V', 'T', '0', '1'};
inline constexpr char kEventIndexMagic[8] = {'S', 'L', 'S', 'E', 'V', 'I', 'D', 'X'};
inline constexpr uint32_t kEventLogVersion = 1;

// Encoded ProcessState blobs (catalog column checkpoints.state).
inline constexpr uint32_t kProcessStateMagic = 0x54535053;  // "SPST" little endian
// Version 2 appends ProcessState::fatal_siginfo, version 3 each thread's
// clear_child_tid, version 4 each thread's alternate signal stack, version 5
// each thread's robust futex list, version 6 each descriptor's object
// (FdEntry::object); versions 1 to 5 are still read.
inline constexpr uint16_t kProcessStateVersion = 6;
inline constexpr uint16_t kOldestProcessStateVersion = 1;

}  // namespace slsdbg::store
