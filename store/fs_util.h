// Small filesystem helpers with the recording's permission policy: recordings
// hold process memory, so directories are 0700 and files 0600.
#pragma once

#include <string>

#include "common/fd.h"
#include "common/result.h"

namespace slsdbg::store {

inline constexpr int kDirMode = 0700;
inline constexpr int kFileMode = 0600;

Status make_dir(const std::string& path);                    // mkdir 0700, ok if it exists
Result<UniqueFd> open_file(const std::string& path, int flags);  // O_CLOEXEC, 0600 on create
Status fsync_dir(const std::string& path);                   // makes new entries durable
Status write_all(int fd, const void* data, size_t size, uint64_t offset);
Status read_exact(int fd, void* data, size_t size, uint64_t offset, const std::string& what);
bool path_exists(const std::string& path);

enum class LockWait { Block, NoWait };
enum class LockKind { Exclusive, Shared };
// flock on PATH (created 0600). NoWait: Error with EWOULDBLOCK if held.
Result<UniqueFd> lock_file(const std::string& path, LockWait wait, LockKind kind = LockKind::Exclusive);

std::string extent_path(const std::string& dir, uint32_t extent);
std::string event_log_path(const std::string& dir, uint64_t segment);

}  // namespace slsdbg::store
