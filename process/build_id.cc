#include "process/build_id.h"

#include <elf.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <vector>

#include "common/fd.h"

namespace slsdbg::process {

namespace {

bool read_at(int fd, void* out, size_t size, uint64_t offset) {
  return pread(fd, out, size, static_cast<off_t>(offset)) == static_cast<ssize_t>(size);
}

std::string to_hex(const uint8_t* p, size_t n) {
  std::string hex;
  char b[3];
  for (size_t i = 0; i < n; i++) {
    std::snprintf(b, sizeof b, "%02x", p[i]);
    hex += b;
  }
  return hex;
}

}  // namespace

std::string read_build_id(const std::string& path) {
  UniqueFd fd(open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) return "";
  Elf64_Ehdr eh;
  if (!read_at(fd.get(), &eh, sizeof eh, 0) || std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
      eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_phnum > 256)
    return "";
  std::vector<Elf64_Phdr> ph(eh.e_phnum);
  if (!read_at(fd.get(), ph.data(), ph.size() * sizeof(Elf64_Phdr), eh.e_phoff)) return "";
  for (const Elf64_Phdr& p : ph) {
    if (p.p_type != PT_NOTE || p.p_filesz > (1u << 16)) continue;
    std::vector<uint8_t> notes(p.p_filesz);
    if (!read_at(fd.get(), notes.data(), notes.size(), p.p_offset)) continue;
    const size_t align = p.p_align == 8 ? 8 : 4;
    auto up = [align](size_t v) { return (v + align - 1) & ~(align - 1); };
    size_t off = 0;
    while (off + sizeof(Elf64_Nhdr) <= notes.size()) {
      Elf64_Nhdr nh;
      std::memcpy(&nh, notes.data() + off, sizeof nh);
      const size_t name = off + sizeof nh, desc = name + up(nh.n_namesz);
      if (desc + nh.n_descsz > notes.size()) break;
      if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 && std::memcmp(notes.data() + name, "GNU", 4) == 0)
        return to_hex(notes.data() + desc, nh.n_descsz);
      off = desc + up(nh.n_descsz);
    }
  }
  return "";
}

}  // namespace slsdbg::process
