#include "process/proc_maps.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <tuple>

#include "common/fd.h"
#include "process/build_id.h"

namespace slsdbg::process {

using store::MappingFlags;

bool is_special_mapping(const store::Mapping& m) {
  return m.path.size() > 2 && m.path.front() == '[' && m.path != "[heap]" && m.path != "[stack]" &&
         m.path.rfind("[anon", 0) != 0;  // "[anon:NAME]" is ordinary named anonymous memory
}

namespace {

// Build-ids by file identity: each file is read once per process.
std::string cached_build_id(const store::Mapping& m) {
  static std::mutex mu;
  static std::map<std::tuple<uint64_t, uint64_t, std::string>, std::string> cache;
  const auto key = std::make_tuple(m.dev, m.inode, m.path);
  std::lock_guard lock(mu);
  auto it = cache.find(key);
  if (it != cache.end()) return it->second;
  return cache[key] = read_build_id(m.path);
}

}  // namespace

namespace {

// Hand-rolled field readers: maps is read at every checkpoint and after
// every mmap of the loader, and sscanf + getline were most of its user time.
bool hex_field(std::string_view& s, char stop, uint64_t& out) {
  out = 0;
  size_t i = 0;
  for (; i < s.size() && s[i] != stop; ++i) {
    const char c = s[i];
    unsigned d;
    if (c >= '0' && c <= '9') d = unsigned(c - '0');
    else if (c >= 'a' && c <= 'f') d = unsigned(c - 'a' + 10);
    else if (c >= 'A' && c <= 'F') d = unsigned(c - 'A' + 10);
    else return false;
    out = (out << 4) | d;
  }
  if (i == 0 || i == s.size()) return false;
  s.remove_prefix(i + 1);
  return true;
}

bool dec_field(std::string_view& s, uint64_t& out) {
  out = 0;
  size_t i = 0;
  for (; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i) out = out * 10 + uint64_t(s[i] - '0');
  if (i == 0) return false;
  s.remove_prefix(i);
  return true;
}

// One line without its newline: "START-END PERMS OFFSET MAJ:MIN INODE   PATH".
bool parse_line(std::string_view s, store::Mapping& m) {
  uint64_t start, end, off, major, minor, inode;
  if (!hex_field(s, '-', start) || !hex_field(s, ' ', end)) return false;
  if (s.size() < 5 || s[4] != ' ') return false;
  const std::string_view perms = s.substr(0, 4);
  s.remove_prefix(5);
  if (!hex_field(s, ' ', off) || !hex_field(s, ':', major) || !hex_field(s, ' ', minor) || !dec_field(s, inode))
    return false;
  if (!s.empty() && s[0] != ' ') return false;
  while (!s.empty() && s[0] == ' ') s.remove_prefix(1);
  m.start = start;
  m.end = end;
  m.file_offset = off;
  m.dev = makedev(unsigned(major), unsigned(minor));
  m.inode = inode;
  m.path.assign(s);
  if (perms[0] == 'r') m.prot |= PROT_READ;
  if (perms[1] == 'w') m.prot |= PROT_WRITE;
  if (perms[2] == 'x') m.prot |= PROT_EXEC;
  if (perms[3] == 's') m.flags |= flag(MappingFlags::Shared);
  if (inode == 0 && (m.path.empty() || m.path.front() == '[')) m.flags |= flag(MappingFlags::Anonymous);
  if (m.path == "[heap]") m.flags |= flag(MappingFlags::Heap);
  if (m.path == "[stack]") m.flags |= flag(MappingFlags::Stack);
  if (is_special_mapping(m)) m.flags |= flag(MappingFlags::Vdso);
  return true;
}

}  // namespace

Result<std::vector<store::Mapping>> parse_maps(std::string_view text, const std::string& origin) {
  std::vector<store::Mapping> maps;
  while (!text.empty()) {
    const size_t nl = text.find('\n');
    const std::string_view line = text.substr(0, nl);
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    store::Mapping m;
    if (!parse_line(line, m)) return Error::msg(origin + ": cannot parse line '" + std::string(line) + "'");
    maps.push_back(std::move(m));
  }
  return maps;
}

Result<std::vector<store::Mapping>> read_maps(pid_t pid) {
  char path[48];
  std::snprintf(path, sizeof path, "/proc/%d/maps", static_cast<int>(pid));
  UniqueFd fd(::open(path, O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) return Error::from_errno(std::string("open(") + path + ")");
  // Large reads: the kernel generates the file anew for each read() call's
  // position, so few calls cost less (a typical process fits in one).
  // Kept per thread at its largest size, so later calls neither allocate
  // nor zero it.
  thread_local std::string text;
  size_t len = 0;
  for (;;) {
    if (text.size() < len + 65536) text.resize(len + 65536);
    const ssize_t n = ::read(fd.get(), text.data() + len, text.size() - len);
    if (n < 0) {
      if (errno == EINTR) continue;
      return Error::from_errno(std::string("read(") + path + ")");
    }
    if (n == 0) break;
    len += size_t(n);
  }
  auto maps = TRY(parse_maps(std::string_view(text.data(), len), path));
  if (maps.empty()) return Error::msg(std::string(path) + ": no mappings (process gone?)");
  for (store::Mapping& m : maps)
    if (m.inode != 0 && !m.path.empty() && m.path.front() == '/') m.build_id = cached_build_id(m);
  return maps;
}

}  // namespace slsdbg::process
