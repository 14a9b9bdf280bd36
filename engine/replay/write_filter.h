// Which segments a Continue with write watchpoints must replay (issue #20,
// "watchpoints skip what cannot matter"). Segment k runs from checkpoint k to
// checkpoint k+1, and k+1's dirty list names every page written meanwhile,
// so a reverse or forward scan for writes replays only the segments that can
// have written the watched bytes; "who last wrote this?" across thousands of
// segments costs the few that touched it.
//
// Segment k must be replayed when (any of):
//   - it is the last segment (no checkpoint after it lists its writes);
//   - checkpoint k+1's dirty list holds a page of the watched bytes. With the
//     uffd-wp-async tracker every write marks its page, by the CPU or by the
//     kernel (syscall outputs, signal frames, rseq), even one that stores the
//     value already there;
//   - one of its logged syscalls wrote the bytes (the log's memory writes);
//   - it changes the address space (mmap, munmap, mremap, brk, madvise,
//     shmat/shmdt, execve, remap_file_pages): a range mapped, written and
//     unmapped again between two checkpoints leaves no dirty page;
//   - it ends in a forced checkpoint (a syscall replay could not model), or
//     checkpoint k+1 is an exec;
//   - its log cannot be read (when unsure, replay);
//   - forward only: it delivers a recorded signal (a forward Continue stops
//     there; a reverse one reports only breakpoints and watchpoints).
// Skipping applies only to write watchpoints (reads leave no dirty page)
// with no breakpoint (one can be hit in any segment), with one exception:
// GDB keeps a breakpoint on the dynamic loader's debug hook (r_debug.r_brk,
// `_dl_debug_state`), which ld.so calls right after storing r_debug.r_state.
// That breakpoint is allowed: segment k must then also be replayed when
// r_debug's page is dirty in checkpoint k's or k+1's list (the store may
// fall just before a checkpoint, the call just after) or it delivers a
// signal. (A program calling the hook itself, or a dlmopen namespace's
// r_debug elsewhere, is not covered.) Skipping applies only to
// recordings made with uffd-wp-async: page hashes miss a write that a later
// one undid within the same segment. SLSDBG_WATCH_SKIP=off turns skipping
// off (measurements).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "store/recording.h"

namespace slsdbg::replay {

class WriteFilter {
 public:
  enum class Use { Reverse, Forward };
  // Byte ranges [addr, addr+len) watched for writes. nullopt when skipping
  // does not apply (see above); `breakpoints` and `reads` say whether the
  // trap set has breakpoints or read/access watchpoints.
  static std::optional<WriteFilter> make(const store::RecordingReader& reader,
                                         std::vector<std::pair<uint64_t, uint64_t>> ranges,
                                         const std::vector<uint64_t>& breakpoints, bool reads);
  // Whether segment k must be replayed (cached per segment).
  bool must_replay(uint64_t k, Use use);

 private:
  struct Verdict {
    bool writes = true;   // may write the watched bytes
    bool signal = true;   // delivers a recorded signal
  };
  WriteFilter(const store::RecordingReader& reader, std::vector<std::pair<uint64_t, uint64_t>> ranges);
  bool page_dirty(uint64_t checkpoint, uint64_t page) const;
  Verdict judge(uint64_t k) const;
  bool overlaps(uint64_t addr, uint64_t len) const;

  const store::RecordingReader* reader_;
  std::vector<std::pair<uint64_t, uint64_t>> ranges_;
  std::vector<store::CheckpointInfo> checkpoints_;
  std::map<uint64_t, Verdict> cache_;
  std::optional<uint64_t> loader_hook_page_;  // r_debug's page, when the hook's breakpoint is set
};

}  // namespace slsdbg::replay
