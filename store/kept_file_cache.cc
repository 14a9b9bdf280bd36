#include "store/kept_file_cache.h"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <ctime>
#include <cstdlib>
#include <cstring>
#include <string>

#include "common/fd.h"
#include "store/kept_files.h"

namespace slsdbg::store {

namespace {

// A link made (or an entry published) within this many seconds counts as
// in use: its recorder may not have linked it yet.
constexpr int kOrphanAgeS = 60;

std::string version_name(const struct stat& st) {
  return std::to_string(st.st_dev) + "-" + std::to_string(st.st_ino) + "-" + std::to_string(st.st_ctim.tv_sec) + "." +
         std::to_string(st.st_ctim.tv_nsec) + "-" + std::to_string(st.st_size);
}

bool same_version(const struct stat& a, const struct stat& b) {
  return a.st_dev == b.st_dev && a.st_ino == b.st_ino && a.st_size == b.st_size &&
         a.st_ctim.tv_sec == b.st_ctim.tv_sec && a.st_ctim.tv_nsec == b.st_ctim.tv_nsec;
}

// Removes other versions of the file whose entries start with `prefix`
// (dev-inode-), and copies no recording links (prune_kept_file_cache), in
// one pass over the directory.
int prune(const std::string& cache_dir, const std::string& prefix, const std::string& keep, int min_age_s) {
  DIR* d = ::opendir(cache_dir.c_str());
  if (!d) return 0;
  // The fine clock, not time(): since Linux 6.13 a file's ctime may come
  // from the fine clock and so run ahead of the coarse one that time()
  // reads, which made a link dropped this instant look younger than 0 s.
  timespec now_ts;
  ::clock_gettime(CLOCK_REALTIME, &now_ts);
  const time_t now = now_ts.tv_sec;
  int removed = 0;
  while (dirent* e = ::readdir(d)) {
    if (e->d_name[0] == '.') continue;  // ".", "..", and another recorder's ".part-" copy in progress
    bool drop = !prefix.empty() && std::strncmp(e->d_name, prefix.c_str(), prefix.size()) == 0 && keep != e->d_name;
    if (!drop) {
      struct stat st;
      drop = ::fstatat(::dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) &&
             st.st_nlink == 1 && now - st.st_ctim.tv_sec >= min_age_s;
    }
    if (drop && ::unlinkat(::dirfd(d), e->d_name, 0) == 0) removed++;
  }
  ::closedir(d);
  return removed;
}

// Copies `src` into the cache as `entry`; false if it changed meanwhile.
bool add_to_cache(const std::string& cache_dir, int src, const struct stat& st, const std::string& entry) {
  const std::string tmp = cache_dir + "/.part-" + std::to_string(::getpid()) + "-" + entry;
  UniqueFd dst(::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600));
  if (!dst.valid()) return false;
  struct stat after;
  const bool copied = copy_whole_file(src, dst.get(), uint64_t(st.st_size)).ok() && ::fstat(src, &after) == 0 &&
                      same_version(st, after);
  // link, not rename: a copy another recorder published first stays.
  const bool published = copied && (::link(tmp.c_str(), (cache_dir + "/" + entry).c_str()) == 0 || errno == EEXIST);
  ::unlink(tmp.c_str());
  if (published) {
    const std::string name = version_name(st);
    prune(cache_dir, name.substr(0, name.find('-', name.find('-') + 1) + 1), entry, kOrphanAgeS);
  }
  return published;
}

}  // namespace

// mkdir -p with 0700 for what it creates; the last component is made 0700.
bool make_private_dirs(const std::string& dir) {
  for (size_t at = 1; at <= dir.size(); at++) {
    if (at != dir.size() && dir[at] != '/') continue;
    const std::string part = dir.substr(0, at);
    if (::mkdir(part.c_str(), 0700) != 0 && errno != EEXIST) return false;
  }
  struct stat st;
  return ::stat(dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == ::geteuid() &&
         (st.st_mode & 077) == 0;
}

std::optional<std::string> read_private_file(const std::string& path, size_t max_bytes) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW));
  struct stat st;
  if (!fd.valid() || ::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != ::geteuid() ||
      (st.st_mode & 022) != 0 || static_cast<uint64_t>(st.st_size) > max_bytes)
    return std::nullopt;
  std::string text(static_cast<size_t>(st.st_size), '\0');
  if (::pread(fd.get(), text.data(), text.size(), 0) != static_cast<ssize_t>(text.size())) return std::nullopt;
  return text;
}

void write_private_file(const std::string& dir, const std::string& name, const std::string& text) {
  if (!make_private_dirs(dir)) return;
  const std::string tmp = dir + "/.part-" + std::to_string(::getpid()) + "-" + name;
  UniqueFd fd(::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600));
  if (!fd.valid()) return;
  const bool written = ::write(fd.get(), text.data(), text.size()) == static_cast<ssize_t>(text.size());
  fd.reset();
  if (!written || ::rename(tmp.c_str(), (dir + "/" + name).c_str()) != 0) ::unlink(tmp.c_str());
}

int prune_kept_file_cache(const std::string& cache_dir, int min_age_s) { return prune(cache_dir, "", "", min_age_s); }

std::string user_cache_dir(const std::string& sub) {
  if (const char* d = std::getenv("SLSDBG_CACHE_DIR"); d && *d) {
    if (std::strcmp(d, "off") == 0) return "";
    return std::string(d) + "/" + sub;
  }
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x == '/') return std::string(x) + "/slsdbg/" + sub;
  const char* home = std::getenv("HOME");
  if (!home || *home != '/') return "";
  return std::string(home) + "/.cache/slsdbg/" + sub;
}

std::string kept_file_cache_dir() { return user_cache_dir("files"); }

bool link_from_cache(const std::string& cache_dir, int src, const struct stat& st, const std::string& target) {
  if (!make_private_dirs(cache_dir)) return false;
  // Another filesystem: a link cannot be made, and copying into the cache
  // as well would double the work.
  struct stat cache_st, target_dir_st;
  const std::string target_dir = target.substr(0, target.rfind('/'));
  if (::stat(cache_dir.c_str(), &cache_st) != 0 || ::stat(target_dir.c_str(), &target_dir_st) != 0 ||
      cache_st.st_dev != target_dir_st.st_dev)
    return false;
  const std::string entry = version_name(st);
  const std::string cached = cache_dir + "/" + entry;
  if (::link(cached.c_str(), target.c_str()) == 0 || errno == EEXIST) return true;
  if (errno != ENOENT) return false;
  if (!add_to_cache(cache_dir, src, st, entry)) return false;
  return ::link(cached.c_str(), target.c_str()) == 0 || errno == EEXIST;
}

}  // namespace slsdbg::store
