#include "engine/replay/go_code.h"

#include <elf.h>
#include <sys/mman.h>

#include <algorithm>
#include <cstring>
#include <string>

#include "process/proc_maps.h"

namespace slsdbg::replay {

namespace {
constexpr uint32_t kGoBuildIdNote = 4;  // Go's linker: ELF note type of the build id
constexpr uint64_t kMaxNotes = 4096;
}  // namespace

std::vector<std::pair<uint64_t, uint64_t>> elf_note_segments(std::span<const uint8_t> head, uint64_t start) {
  std::vector<std::pair<uint64_t, uint64_t>> out;
  Elf64_Ehdr eh;
  if (head.size() < sizeof eh) return out;
  std::memcpy(&eh, head.data(), sizeof eh);
  if (std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64) return out;
  if (eh.e_phentsize != sizeof(Elf64_Phdr)) return out;
  std::vector<Elf64_Phdr> ph;
  for (uint64_t i = 0; i < eh.e_phnum; i++) {
    const uint64_t at = eh.e_phoff + i * sizeof(Elf64_Phdr);
    if (at + sizeof(Elf64_Phdr) > head.size()) return out;
    Elf64_Phdr p;
    std::memcpy(&p, head.data() + at, sizeof p);
    ph.push_back(p);
  }
  // The mapping at offset 0 holds the first PT_LOAD: the load bias is its
  // start less that segment's page-aligned address (0 for ET_EXEC).
  uint64_t first_load = UINT64_MAX;
  for (const Elf64_Phdr& p : ph)
    if (p.p_type == PT_LOAD) first_load = std::min(first_load, p.p_vaddr & ~uint64_t{0xfff});
  if (first_load == UINT64_MAX) return out;
  const uint64_t bias = start - first_load;
  for (const Elf64_Phdr& p : ph)
    if (p.p_type == PT_NOTE && p.p_memsz > 0) out.emplace_back(bias + p.p_vaddr, std::min<uint64_t>(p.p_memsz, kMaxNotes));
  return out;
}

bool has_go_note(std::span<const uint8_t> notes) {
  uint64_t at = 0;
  while (at + 12 <= notes.size()) {
    uint32_t namesz = 0, descsz = 0, type = 0;
    std::memcpy(&namesz, notes.data() + at, 4);
    std::memcpy(&descsz, notes.data() + at + 4, 4);
    std::memcpy(&type, notes.data() + at + 8, 4);
    const uint64_t name_at = at + 12;
    const uint64_t desc_at = name_at + ((uint64_t{namesz} + 3) & ~uint64_t{3});
    if (name_at + namesz > notes.size()) return false;
    // Go's linker writes the name padded, "Go\0\0" with namesz 4 (gofmt's
    // note reads so); "Go\0" with 3 is the ELF convention, taken too.
    const bool go_name = (namesz == 3 || namesz == 4) && std::memcmp(notes.data() + name_at, "Go\0\0", namesz) == 0;
    if (type == kGoBuildIdNote && go_name) return true;
    at = desc_at + ((uint64_t{descsz} + 3) & ~uint64_t{3});
  }
  return false;
}

bool maps_go_code(process::Task& task) {
  Result<std::vector<store::Mapping>> maps = process::read_maps(task.tgid());
  if (!maps.ok()) return false;
  for (const store::Mapping& m : *maps) {
    // Any readable mapping that starts with an ELF header: a restored
    // process's images may be copies, or anonymous.
    if (!(m.prot & PROT_READ) || process::is_special_mapping(m)) continue;
    uint8_t magic[SELFMAG] = {};
    if (!task.read_memory(RemoteAddr(m.start), magic).ok() || std::memcmp(magic, ELFMAG, SELFMAG) != 0) continue;
    std::vector<uint8_t> head(4096);
    if (!task.read_memory(RemoteAddr(m.start), head).ok()) continue;
    for (const auto& [addr, size] : elf_note_segments(head, m.start)) {
      std::vector<uint8_t> notes(size);
      if (task.read_memory(RemoteAddr(addr), notes).ok() && has_go_note(notes)) return true;
    }
  }
  return false;
}

}  // namespace slsdbg::replay
