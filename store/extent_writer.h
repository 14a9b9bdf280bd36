// Append-only writer of 4 KiB blocks into preallocated extent files
// pages/NNNNNN.ext, through io_uring in large batches.
//
//   pages/000000.ext  [hdr][blk 1][blk 2]...[blk n | preallocated, unwritten ....]
//                            ^ data pages and tree nodes, in write order
//
// put() copies a block into a 1 MiB staging buffer and returns its BlockRef at
// once; full buffers are submitted as one write per contiguous run (>= 64 KiB
// whenever blocks are appended) while the caller keeps hashing (O_DIRECT
// writes; those into the page cache are made at once, without the ring). sync() waits
// for every write and fdatasyncs the files: only then may the catalog point
// at the blocks. Files are written O_DIRECT where the filesystem allows it
// (else, e.g. tmpfs before Linux 6.6, buffered writes, still through
// io_uring), after the first 4 MiB, which go through the page cache: a
// short recording does not wait for the device. Blocks freed
// by retention (drop_checkpoints_before) are reused before the file grows.
#pragma once

#include <liburing.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/fd.h"
#include "common/result.h"
#include "store/format.h"

namespace slsdbg::store {

enum class IoMode { Direct, Buffered };

class ExtentWriter {
 public:
  ~ExtentWriter();
  ExtentWriter(const ExtentWriter&) = delete;
  ExtentWriter& operator=(const ExtentWriter&) = delete;

  // Creates pages/000000.ext in DIR (which must contain pages/).
  // mode Direct: try O_DIRECT, fall back to buffered where it is refused.
  // sync_new_files: a new extent file's header and directory entry are
  // fsynced at once; else by the next sync() (and pages/ by the caller).
  static Result<std::unique_ptr<ExtentWriter>> create(const std::string& dir, uint32_t blocks_per_extent, IoMode mode,
                                                      bool sync_new_files = true);

  // Stages one kBlockSize block; the data is copied.
  Result<BlockRef> put(const uint8_t* block);
  // Waits for all staged blocks: they are in the kernel and readable.
  Status flush();
  // flush(), then makes every block written so far durable.
  Status sync();
  // As sync(), and fsyncs `more` (event logs, directories) too: every sync
  // is submitted at once, so the filesystem can commit them together
  // rather than one journal commit after the other.
  struct SyncTarget {
    int fd;
    std::string path;  // for the error
    bool data_only;    // fdatasync (a file), else fsync (a directory)
  };
  Status sync_together(const std::vector<SyncTarget>& more);

  // After the last write: gives back the preallocated, never written tail of
  // the last extent file (the recording is finished, nothing grows it again).
  Status trim_tail();

  void add_free_blocks(const std::vector<BlockRef>& refs);
  uint32_t extent_count() const { return uint32_t(files_.size()); }
  IoMode io_mode() const { return mode_; }
  uint64_t blocks_appended() const { return appended_; }
  uint64_t blocks_reused() const { return reused_; }

 private:
  struct File {
    UniqueFd fd;
    uint64_t preallocated = 0;  // blocks
    bool needs_sync = false;
  };
  struct Buffer {
    uint8_t* data = nullptr;
    std::vector<BlockRef> refs;  // one per staged block
    int in_flight = 0;           // SQEs not yet completed
  };
  ExtentWriter() = default;

  Status open_extent(uint32_t extent);
  Status go_direct();  // the buffered start is over: O_DIRECT from now on
  Status ensure_ring();
  Result<BlockRef> allocate();
  Status submit_current();
  Status reap(bool wait_one);
  Status wait_all();
  Result<Buffer*> free_buffer();

  std::string dir_;
  bool sync_new_files_ = true;
  uint32_t blocks_per_extent_ = 0;
  IoMode mode_ = IoMode::Direct;  // Direct: O_DIRECT once past the buffered start
  bool direct_now_ = false;       // the files are O_DIRECT now
  std::vector<File> files_;
  uint32_t head_slot_ = 1;  // next new slot in the last extent
  std::vector<BlockRef> free_;
  std::vector<Buffer> buffers_;
  Buffer* current_ = nullptr;
  io_uring ring_{};
  bool ring_ok_ = false;
  int pending_sqes_ = 0;
  uint64_t appended_ = 0;
  uint64_t reused_ = 0;
};

}  // namespace slsdbg::store
