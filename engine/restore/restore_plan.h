// The restore plan: what to do with each recorded mapping, decided from the
// checkpoint's ProcessState alone (plus a probe saying whether a mapped file
// still is the one that was recorded). Pure data, no ptrace: the executor in
// restore.cc carries it out with injected syscalls.
//
// Policy (docs/performance.md `## restore` and engine/restore/README.md):
//   anonymous private / [heap] / [stack]  -> MAP_PRIVATE|MAP_ANONYMOUS, all pages from the store
//   anonymous shared (incl. memfd, shmem) -> MAP_SHARED|MAP_ANONYMOUS, all pages from the store
//   private file, file unchanged          -> MAP_PRIVATE of the file with the recorded protection;
//                                            only pages that differ from the file are written
//                                            (they were COW copies), via /proc/PID/mem
//   shared file, file unchanged           -> MAP_SHARED of the file, nothing written: the
//                                            restore never modifies a user's file; if its
//                                            contents differ from the recording, the executor
//                                            falls back to a private anonymous copy + warning
//   file changed / deleted / missing      -> anonymous (sharing kept), all pages from the store
//   [vdso]                                -> plain anonymous memory with the recorded (patched) pages
//   [vvar], [vvar_vclock]                 -> anonymous zero pages with the recorded protection
//                                            (both replaced by the kernel's own vDSO at the recorded
//                                            address when its layout matches: restore_vdso.cc)
//   [vsyscall], the injection area        -> skipped: identical in every process (the
//                                            restorer's own injection pages stay)
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "common/result.h"
#include "store/process_state.h"

namespace slsdbg::restore {

enum class MappingSource { Anonymous, File };

enum class FillPolicy {
  None,               // leave as mapped (zero, or the file's contents)
  AllPages,           // every non-zero page from the store
  PagesDifferingFromFile,  // pages whose recorded contents differ from the file
  VerifySharedFile,   // compare with the file; on a difference fall back to an anonymous copy
};

struct MappingStep {
  store::Mapping mapping;
  MappingSource source = MappingSource::Anonymous;
  int mmap_flags = 0;       // MAP_FIXED | MAP_PRIVATE/MAP_SHARED | MAP_ANONYMOUS | MAP_GROWSDOWN
  uint32_t map_prot = 0;    // protection while contents are written
  uint32_t final_prot = 0;  // recorded protection, set by mprotect after filling
  int open_flags = 0;       // for MappingSource::File
  std::string file_path;    // the file to map: mapping.path or its packed copy ("" = mapping.path)
  FillPolicy fill = FillPolicy::None;
  bool lazy = false;        // filled by the LazyFiller, not before restore returns
};

enum class FileCheck { Unchanged, Changed, Missing };

// Says whether the file behind a recorded mapping is still the recorded one
// (same device and inode, large enough). Injected so tests can model it.
using FileProbe = std::function<FileCheck(const store::Mapping&)>;

// The real probe: stat(2) of mapping.path. With `file` set to another path
// (the copy `slsdbg pack` made), that file is probed instead and only its
// size counts: a copy has its own device and inode, and the pages that
// differ from it are written anyway.
FileCheck probe_file_on_disk(const store::Mapping& m, const std::string& file = "");

// The path a step maps.
inline const std::string& file_of(const MappingStep& s) { return s.file_path.empty() ? s.mapping.path : s.file_path; }

struct RestorePlan {
  std::vector<MappingStep> mappings;  // in address order
  std::vector<std::string> warnings;  // known before anything runs, one line each
  uint64_t scratch_addr = 0;          // a free range of kScratchSize for injected-syscall arguments
};

inline constexpr uint64_t kScratchSize = 64 * 1024;

// The injection pages (process/inject.h): present in the recorded
// process and in the restorer alike.
struct InjectArea {
  uint64_t start = 0;
  uint64_t size = 0;
  bool contains(const store::Mapping& m) const { return m.start >= start && m.end <= start + size; }
  bool overlaps(const store::Mapping& m) const { return m.start < start + size && start < m.end; }
};

// Every mapping that the restorer will create, skipping the injection area
// and [vsyscall]. Errors on overlapping or unaligned mappings.
Result<RestorePlan> plan_restore(const store::ProcessState& state, InjectArea inject, const FileProbe& probe);

// A page-aligned free range of `size` bytes that overlaps no recorded mapping
// and not the injection area, searched upwards from 4 GiB.
Result<uint64_t> find_free_range(const std::vector<store::Mapping>& mappings, InjectArea inject, uint64_t size);

// Human-readable "START-END PATH" for messages.
std::string describe(const store::Mapping& m);

}  // namespace slsdbg::restore
