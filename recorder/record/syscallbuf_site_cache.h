// libc's syscall sites, checked once per libc build and kept in the
// per-user cache (recorder/record/syscallbuf.h's first patch).
//
// Checking which of libc's sites the syscall buffer may patch means reading
// its 1.5 MiB of text, scanning it and disassembling the functions that hold
// sites (syscallbuf_jumps.h): ~10 ms of CPU, which was a third of the
// recording of a short grep. The answer depends only on libc's bytes, so it
// is kept by libc's GNU build-id (read from the tracee's memory) in
// <cache>/libc-sites/<build-id> (store/kept_file_cache.h: 0700, the user's
// own; SLSDBG_CACHE_DIR=off turns it off). Each site there is checked again
// against the tracee's bytes before it is patched (site_matches), so a stale
// or damaged entry can only decline sites, never patch something that is not
// a site.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"
#include "recorder/record/syscallbuf_sites.h"
#include "store/process_state.h"

namespace slsdbg::recorder {

struct LibcSite {
  uint64_t offset = 0;   // from libc's base (its first mapping, file offset 0)
  bool wide = false;
  long nr = -1;          // set right before it, or -1
  bool refused = false;  // a branch enters it after its first byte: never patched
};

// Every syscall-shaped site of one libc's text, with the jump check's answer.
struct LibcSiteTable {
  std::string build_id;      // hex
  uint64_t text_offset = 0;  // the executable mapping's, from the base
  uint64_t text_size = 0;
  std::vector<LibcSite> sites;  // sorted by offset

  const LibcSite* find(uint64_t offset) const;
};

// Where libc sits in `maps`: its base and its executable mapping.
struct LibcLayout {
  uint64_t base = 0;
  uint64_t text_start = 0, text_end = 0;
};
std::optional<LibcLayout> libc_layout(const std::vector<store::Mapping>& maps);

// libc's build-id as hex, read from its notes in `pid`'s memory ("" if none).
std::string libc_build_id(pid_t pid, uint64_t base);

// The table for `pid`'s libc: from `cache_dir` when it holds this build,
// else made by reading and checking the text (and saved there). `from_cache`
// tells which. cache_dir "": no cache.
Result<LibcSiteTable> libc_site_table(pid_t pid, const std::vector<store::Mapping>& maps, const std::string& cache_dir,
                                      bool* from_cache);

// The file format (text, one site per line); nullopt when `text` is not a
// table of `build_id` in this version.
std::string encode_site_table(const LibcSiteTable& t);
std::optional<LibcSiteTable> decode_site_table(const std::string& text, const std::string& build_id);

// $SLSDBG_CACHE_DIR/libc-sites (or the default cache root's), "" when off.
std::string site_cache_dir();

// The 14 bytes from 6 before a site's `syscall` still hold `s`'s shape and
// number (the check before a cached site is patched).
bool site_matches(const uint8_t (&window)[14], const LibcSite& s);

}  // namespace slsdbg::recorder
