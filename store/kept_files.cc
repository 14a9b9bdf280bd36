#include "store/kept_files.h"

#include <fcntl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "common/fd.h"
#include "store/kept_file_cache.h"
#include "store/format.h"

namespace slsdbg::store {

namespace {

bool same_file(const Mapping& m, const struct stat& st) {
  // /proc/PID/maps gives dev as major:minor; the recorder encodes it with makedev.
  const bool same_dev = m.dev == st.st_dev || m.dev == ((uint64_t(major(st.st_dev)) << 8) | minor(st.st_dev));
  return same_dev && m.inode == st.st_ino;
}

}  // namespace

Status copy_whole_file(int from, int to, uint64_t size) {
  if (::ioctl(to, FICLONE, from) == 0) return ok_status();
  // Explicit offsets: `from` may have been read by an earlier attempt.
  loff_t in = 0, out = 0;
  uint64_t done = 0;
  while (done < size) {
    ssize_t n = ::copy_file_range(from, &in, to, &out, size - done, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Error::from_errno("copy_file_range");
    if (n == 0) break;  // the file shrank: the rest reads as zero, as the mapping would fault
    done += uint64_t(n);
  }
  return ok_status();
}

std::string kept_file_path(const std::string& recording_dir, uint64_t dev, uint64_t inode) {
  return recording_dir + "/" + kKeptFilesDir + "/" + std::to_string(dev) + "-" + std::to_string(inode);
}

bool keepable(const Mapping& m) {
  return !(m.flags & (flag(MappingFlags::Anonymous) | flag(MappingFlags::Shared))) && !m.path.empty() &&
         m.path[0] == '/' && m.inode != 0;
}

Result<bool> keep_mapped_file(const std::string& recording_dir, const Mapping& m, const std::string& pool_dir,
                              const std::string& cache_dir) {
  if (!keepable(m)) return false;
  const std::string target = kept_file_path(recording_dir, m.dev, m.inode);
  if (::access(target.c_str(), F_OK) == 0) return true;
  if (!pool_dir.empty() && pool_dir != recording_dir) {
    if (!TRY(keep_mapped_file(pool_dir, m, "", cache_dir))) return false;
    const std::string dir = recording_dir + "/" + kKeptFilesDir;
    if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) return Error::from_errno("mkdir " + dir);
    if (::link(kept_file_path(pool_dir, m.dev, m.inode).c_str(), target.c_str()) == 0 || errno == EEXIST) return true;
    // Not linkable (another filesystem): a copy of its own, below.
  }
  UniqueFd src(::open(m.path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK));
  if (!src.valid()) return false;
  struct stat st;
  if (::fstat(src.get(), &st) != 0 || !S_ISREG(st.st_mode) || !same_file(m, st) ||
      uint64_t(st.st_size) > kMaxKeptFileBytes)
    return false;
  const std::string dir = recording_dir + "/" + kKeptFilesDir;
  if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) return Error::from_errno("mkdir " + dir);
  if (!cache_dir.empty() && link_from_cache(cache_dir, src.get(), st, target)) return true;
  // Written under a temporary name, so a crash never leaves a short file
  // that readers would take for the mapped one.
  const std::string tmp = target + ".part";
  UniqueFd dst(::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600));
  if (!dst.valid()) return Error::from_errno("create " + tmp);
  Status copied = copy_whole_file(src.get(), dst.get(), uint64_t(st.st_size));
  if (!copied.ok()) {
    ::unlink(tmp.c_str());
    return copied.take_error().context("keeping " + m.path + " in the recording");
  }
  if (::rename(tmp.c_str(), target.c_str()) != 0) return Error::from_errno("rename " + tmp);
  return true;
}

KeptFiles::KeptFiles(std::string recording_dir) : dir_(std::move(recording_dir)) { rescan(); }

void KeptFiles::rescan() {
  struct stat st;
  const bool any = ::stat((dir_ + "/" + kKeptFilesDir).c_str(), &st) == 0 && S_ISDIR(st.st_mode);
  std::lock_guard lock(mu_);
  any_ = any;
  std::erase_if(fds_, [](const auto& kv) { return kv.second < 0; });
}

KeptFiles::~KeptFiles() {
  for (auto& [key, fd] : fds_)
    if (fd >= 0) ::close(fd);
}

bool KeptFiles::has(uint64_t dev, uint64_t inode) const {
  if (!any_) return false;
  std::lock_guard lock(mu_);
  auto it = fds_.find({dev, inode});
  if (it == fds_.end()) {
    int fd = ::open(kept_file_path(dir_, dev, inode).c_str(), O_RDONLY | O_CLOEXEC);
    it = fds_.emplace(std::make_pair(dev, inode), fd).first;
  }
  return it->second >= 0;
}

Result<bool> KeptFiles::read_page(uint64_t dev, uint64_t inode, uint64_t offset, uint8_t* out) const {
  if (!has(dev, inode)) return false;
  int fd;
  {
    std::lock_guard lock(mu_);
    fd = fds_.at({dev, inode});
  }
  size_t got = 0;
  while (got < kPageSize) {
    ssize_t n = ::pread(fd, out + got, kPageSize - got, off_t(offset + got));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Error::from_errno("reading " + kept_file_path(dir_, dev, inode));
    if (n == 0) break;
    got += size_t(n);
  }
  std::memset(out + got, 0, kPageSize - got);
  return true;
}

}  // namespace slsdbg::store
