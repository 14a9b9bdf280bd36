// Files the recorded program maps privately (its binary, ld.so, libc ...),
// kept whole inside the recording as REC/files/<dev>-<inode>: a reflink or a
// copy made when a mapping of the file first appears (format 6). The capture
// then stores only the pages of such a mapping that differ from the file
// (the program's copy-on-write copies, zero pages included); a page of it
// that is absent from the page tree reads as the kept file's bytes. Before,
// every page of every new file mapping was read out of the tracee, hashed
// and written: ~10 ms of a recording of /bin/true (docs/performance.md
// `### Fixed cost`).
#pragma once

#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include "common/result.h"
#include "store/process_state.h"

namespace slsdbg::store {

inline constexpr const char* kKeptFilesDir = "files";

// REC/files/<dev>-<inode> (the numbers of the mapped file, as /proc/PID/maps gives them).
std::string kept_file_path(const std::string& recording_dir, uint64_t dev, uint64_t inode);

// A private mapping of a regular file by path: its untouched pages read as the file's.
bool keepable(const Mapping& m);

// Recorder side: makes REC/files/<dev>-<inode> a copy of the file `m` maps
// (FICLONE where the filesystem shares blocks, else copy_file_range). Ok(false)
// when the file cannot stand in for the mapping: not keepable, the path now
// names another file, or larger than kMaxKeptFileBytes. Then the caller copies
// the mapping's pages as before. Idempotent. With `pool_dir` (the recording
// that holds several processes' recordings), the copy is made once there and
// hard-linked into `recording_dir`, so every process that maps libc shares one.
// With `cache_dir` (kept_file_cache.h), the copy is a hard link to the
// per-user cache's copy of this version of the file where that can be.
inline constexpr uint64_t kMaxKeptFileBytes = 1ull << 30;
Result<bool> keep_mapped_file(const std::string& recording_dir, const Mapping& m, const std::string& pool_dir = "",
                              const std::string& cache_dir = "");

// Copies `size` bytes of `from` into `to` from offset 0 (FICLONE where the
// filesystem shares blocks, else copy_file_range).
Status copy_whole_file(int from, int to, uint64_t size);

// Reader side: the kept files of one recording, opened on first use.
class KeptFiles {
 public:
  explicit KeptFiles(std::string recording_dir);
  ~KeptFiles();
  KeptFiles(const KeptFiles&) = delete;
  KeptFiles& operator=(const KeptFiles&) = delete;
  // Whether the recording keeps any file (recordings before format 6 do not).
  bool any() const { return any_; }
  // A live recording keeps files as its program maps them: look again (the
  // reader's refresh()), forgetting files found missing before.
  void rescan();
  bool has(uint64_t dev, uint64_t inode) const;
  // One page of the kept file at `offset` (zero beyond its end). Ok(false): not kept.
  Result<bool> read_page(uint64_t dev, uint64_t inode, uint64_t offset, uint8_t* out) const;

 private:
  std::string dir_;
  std::atomic<bool> any_ = false;
  mutable std::mutex mu_;
  mutable std::map<std::pair<uint64_t, uint64_t>, int> fds_;  // -1: not kept
};

}  // namespace slsdbg::store
