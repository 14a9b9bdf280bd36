// A per-user cache of kept files (store/kept_files.h): one private copy of
// each version of a mapped file (libc, ld.so, the program), made at the
// first recording that maps it and hard-linked into every later recording's
// REC/files. A recording of a program that exits at once otherwise copies
// ~2 MiB and creates 3-4 inodes in its stop before the program's first
// instruction (docs/performance.md `### Fixed cost`).
//
// A version is named by what changes when the file's bytes may have:
// <dev>-<inode>-<ctime>-<size>. ctime is set by the kernel on every write,
// truncate or chmod and cannot be set back by a user, so an entry never
// stands for other bytes than the file had when it was copied (a copy that
// raced with a write is not published). The copies are the recorder's own,
// in a 0700 directory nobody else writes; a recording holds a link, so
// removing the cache or one of its entries never touches a recording.
#pragma once

#include <sys/stat.h>

#include <cstddef>
#include <optional>
#include <string>

namespace slsdbg::store {

// The per-user cache's subdirectory `sub`: under $SLSDBG_CACHE_DIR, else
// $XDG_CACHE_HOME/slsdbg, else ~/.cache/slsdbg; "" when SLSDBG_CACHE_DIR=off
// or there is no home.
std::string user_cache_dir(const std::string& sub);

// mkdir -p with 0700 for what it creates. false unless `dir` is then a
// directory of this user that nobody else may enter or write.
bool make_private_dirs(const std::string& dir);

// A small file of the per-user cache (libc sites, CPUID records): its bytes
// if it is a regular file of this user that nobody else may write, of at
// most `max_bytes`; nullopt otherwise.
std::optional<std::string> read_private_file(const std::string& path, size_t max_bytes);

// Publishes `text` as dir/name (dir made private first) whole, by a rename,
// so a reader never sees half of it. Best effort: the cache is a shortcut.
void write_private_file(const std::string& dir, const std::string& name, const std::string& text);

// $SLSDBG_CACHE_DIR, else $XDG_CACHE_HOME/slsdbg, else ~/.cache/slsdbg, with
// "/files" appended; "" when SLSDBG_CACHE_DIR=off or there is no home.
std::string kept_file_cache_dir();

// Makes `target` a hard link to the cached copy of the file open as `src`
// (whose fstat is `st`), copying it into `cache_dir` first when this version
// is not cached. false: the cache cannot serve (not creatable, another
// filesystem than `target`, the file changed while copied, any error: it
// is only a shortcut); the caller copies as before. An older version of
// the same dev-inode is removed from the cache when a newer one is added,
// and so is every copy no recording links any more (prune_kept_file_cache).
bool link_from_cache(const std::string& cache_dir, int src, const struct stat& st, const std::string& target);

// Removes the cache entries only the cache still links (st_nlink 1: every
// recording that held one was deleted) that were last linked at least
// `min_age_s` seconds ago, so a copy another recorder has just published
// and not linked yet stays. Kept files may hold a program's data files, so
// a deleted recording's copies must not outlive it for long: this runs
// whenever a recording adds a file to the cache. Returns how many went.
int prune_kept_file_cache(const std::string& cache_dir, int min_age_s);

}  // namespace slsdbg::store
