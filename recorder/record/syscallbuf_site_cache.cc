#include "recorder/record/syscallbuf_site_cache.h"

#include <elf.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cinttypes>
#include <cstdio>
#include <cstring>

#include "common/fd.h"
#include "recorder/record/syscallbuf_jumps.h"
#include "store/kept_file_cache.h"

namespace slsdbg::recorder {

namespace {

constexpr const char* kMagic = "slsdbg-libc-sites 1";
constexpr size_t kMaxFile = 1u << 20;

bool vm_read(pid_t pid, uint64_t addr, void* out, uint64_t len) {
  struct iovec local{out, len};
  struct iovec remote{reinterpret_cast<void*>(addr), len};
  return process_vm_readv(pid, &local, 1, &remote, 1, 0) == static_cast<ssize_t>(len);
}

bool is_libc(const store::Mapping& m) { return m.path.find("/libc.so") != std::string::npos; }

bool hex_only(const std::string& s) {
  return !s.empty() && s.size() <= 128 && std::all_of(s.begin(), s.end(), [](char c) { return std::isxdigit(c); });
}

}  // namespace

const LibcSite* LibcSiteTable::find(uint64_t offset) const {
  auto it = std::lower_bound(sites.begin(), sites.end(), offset,
                             [](const LibcSite& s, uint64_t off) { return s.offset < off; });
  return it != sites.end() && it->offset == offset ? &*it : nullptr;
}

std::optional<LibcLayout> libc_layout(const std::vector<store::Mapping>& maps) {
  LibcLayout l;
  bool base = false;
  for (const store::Mapping& m : maps) {
    if (!is_libc(m)) continue;
    if (m.file_offset == 0 && !base) {
      l.base = m.start;
      base = true;
    }
    if ((m.prot & PROT_EXEC) && l.text_end == 0 && m.end - m.start <= (64u << 20)) {
      l.text_start = m.start;
      l.text_end = m.end;
    }
  }
  if (!base || l.text_end == 0 || l.text_start < l.base) return std::nullopt;
  return l;
}

std::string libc_build_id(pid_t pid, uint64_t base) {
  Elf64_Ehdr eh;
  if (!vm_read(pid, base, &eh, sizeof eh) || std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_phnum > 64)
    return "";
  std::vector<Elf64_Phdr> ph(eh.e_phnum);
  if (!vm_read(pid, base + eh.e_phoff, ph.data(), ph.size() * sizeof(Elf64_Phdr))) return "";
  for (const Elf64_Phdr& p : ph) {
    if (p.p_type != PT_NOTE || p.p_memsz > 4096) continue;
    std::vector<uint8_t> notes(p.p_memsz);
    if (!vm_read(pid, base + p.p_vaddr, notes.data(), notes.size())) continue;
    for (size_t at = 0; at + sizeof(Elf64_Nhdr) <= notes.size();) {
      Elf64_Nhdr nh;
      std::memcpy(&nh, notes.data() + at, sizeof nh);
      const size_t name_at = at + sizeof nh, desc_at = name_at + ((nh.n_namesz + 3) & ~3u);
      const size_t next = desc_at + ((nh.n_descsz + 3) & ~3u);
      if (next > notes.size()) break;
      if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 && std::memcmp(notes.data() + name_at, "GNU", 4) == 0 &&
          nh.n_descsz > 0 && nh.n_descsz <= 64) {
        std::string hex;
        char byte[3];
        for (size_t i = 0; i < nh.n_descsz; i++) {
          std::snprintf(byte, sizeof byte, "%02x", notes[desc_at + i]);
          hex += byte;
        }
        return hex;
      }
      at = next;
    }
  }
  return "";
}

std::string encode_site_table(const LibcSiteTable& t) {
  std::string out = std::string(kMagic) + " " + t.build_id + " " + std::to_string(t.text_offset) + " " +
                    std::to_string(t.text_size) + " " + std::to_string(t.sites.size()) + "\n";
  char line[96];
  for (const LibcSite& s : t.sites) {
    std::snprintf(line, sizeof line, "%" PRIu64 " %d %ld %d\n", s.offset, s.wide ? 1 : 0, s.nr, s.refused ? 1 : 0);
    out += line;
  }
  return out;
}

std::optional<LibcSiteTable> decode_site_table(const std::string& text, const std::string& build_id) {
  LibcSiteTable t;
  char id[160] = {};
  unsigned long long off = 0, size = 0, count = 0;
  int used = 0;
  const std::string head = std::string(kMagic) + " %159s %llu %llu %llu\n%n";
  if (std::sscanf(text.c_str(), head.c_str(), id, &off, &size, &count, &used) != 4 || used <= 0 || id != build_id ||
      count > text.size())
    return std::nullopt;
  t.build_id = id;
  t.text_offset = off;
  t.text_size = size;
  const char* p = text.c_str() + used;
  for (unsigned long long i = 0; i < count; i++) {
    unsigned long long o = 0;
    int wide = 0, refused = 0, n = 0;
    long nr = -1;
    if (std::sscanf(p, "%llu %d %ld %d\n%n", &o, &wide, &nr, &refused, &n) != 4 || n <= 0 || wide < 0 || wide > 1 ||
        refused < 0 || refused > 1 || (!t.sites.empty() && o <= t.sites.back().offset))
      return std::nullopt;
    t.sites.push_back({o, wide == 1, nr, refused == 1});
    p += n;
  }
  if (*p != '\0') return std::nullopt;
  return t;
}

std::string site_cache_dir() { return store::user_cache_dir("libc-sites"); }

bool site_matches(const uint8_t (&window)[14], const LibcSite& s) {
  const std::vector<SysbufSite> found = find_syscall_shapes(std::span<const uint8_t>(window, sizeof window), 0);
  return found.size() == 1 && found[0].addr == 6 && found[0].wide == s.wide && found[0].nr == s.nr;
}

Result<LibcSiteTable> libc_site_table(pid_t pid, const std::vector<store::Mapping>& maps, const std::string& cache_dir,
                                      bool* from_cache) {
  *from_cache = false;
  const std::optional<LibcLayout> l = libc_layout(maps);
  if (!l) return Error::msg("libc's mappings were not found");
  const std::string id = libc_build_id(pid, l->base);
  const bool cacheable = !cache_dir.empty() && hex_only(id);
  if (cacheable) {
    if (std::optional<std::string> text = store::read_private_file(cache_dir + "/" + id, kMaxFile)) {
      std::optional<LibcSiteTable> t = decode_site_table(*text, id);
      if (t && t->text_offset == l->text_start - l->base && t->text_size == l->text_end - l->text_start) {
        *from_cache = true;
        return std::move(*t);
      }
    }
  }
  const SiteJumpCheck check = TRY(SiteJumpCheck::load(pid, maps));
  std::span<const uint8_t> text = check.text(l->text_start, l->text_end);
  if (text.empty()) return Error::msg("libc's text was not read");
  const std::vector<SysbufSite> shapes = find_syscall_shapes(text, l->text_start);
  const std::set<uint64_t> refused = check.refused(shapes);
  LibcSiteTable t;
  t.build_id = id;
  t.text_offset = l->text_start - l->base;
  t.text_size = l->text_end - l->text_start;
  for (const SysbufSite& s : shapes) t.sites.push_back({s.addr - l->base, s.wide, s.nr, refused.count(s.addr) > 0});
  if (cacheable) store::write_private_file(cache_dir, id, encode_site_table(t));
  return t;
}

}  // namespace slsdbg::recorder
