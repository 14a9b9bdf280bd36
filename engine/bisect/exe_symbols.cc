#include "engine/bisect/exe_symbols.h"

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <unistd.h>

#include "common/fd.h"

namespace slsdbg::bisect {
namespace {

// The executable's load bias: runtime start of its offset-0 mapping minus the
// page-aligned vaddr of its offset-0 PT_LOAD (0 for a non-PIE executable).
Result<uint64_t> load_bias(Elf* elf, const std::string& exe, const store::ProcessState& state) {
  GElf_Ehdr ehdr;
  if (!gelf_getehdr(elf, &ehdr)) return Error::msg(exe + ": not an ELF file");
  if (ehdr.e_type == ET_EXEC) return uint64_t{0};
  size_t phnum = 0;
  elf_getphdrnum(elf, &phnum);
  std::optional<uint64_t> first_vaddr;
  for (size_t i = 0; i < phnum; i++) {
    GElf_Phdr ph;
    if (gelf_getphdr(elf, static_cast<int>(i), &ph) && ph.p_type == PT_LOAD && ph.p_offset == 0) {
      first_vaddr = ph.p_vaddr & ~(kPageSize - 1);
      break;
    }
  }
  if (!first_vaddr) return Error::msg(exe + ": no PT_LOAD at file offset 0");
  for (const auto& m : state.mappings)
    if (m.path == exe && m.file_offset == 0) return m.start - *first_vaddr;
  return Error::msg(exe + ": not mapped in the recorded process");
}

}  // namespace

Result<ExeSymbols> ExeSymbols::load(const std::string& exe, const store::ProcessState& state) {
  elf_version(EV_CURRENT);
  int raw = ::open(exe.c_str(), O_RDONLY | O_CLOEXEC);
  if (raw < 0) return Error::from_errno("open " + exe);
  UniqueFd fd(raw);
  Elf* elf = elf_begin(fd.get(), ELF_C_READ, nullptr);
  if (!elf) return Error::msg(exe + ": " + elf_errmsg(-1));
  auto bias = load_bias(elf, exe, state);
  if (!bias.ok()) {
    elf_end(elf);
    return bias.take_error();
  }
  ExeSymbols out;
  for (Elf64_Word wanted : {SHT_SYMTAB, SHT_DYNSYM}) {
    for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn; scn = elf_nextscn(elf, scn)) {
      GElf_Shdr sh;
      if (!gelf_getshdr(scn, &sh) || sh.sh_type != wanted || sh.sh_entsize == 0) continue;
      Elf_Data* data = elf_getdata(scn, nullptr);
      if (!data) continue;
      size_t count = sh.sh_size / sh.sh_entsize;
      for (size_t i = 0; i < count; i++) {
        GElf_Sym sym;
        if (!gelf_getsym(data, static_cast<int>(i), &sym) || sym.st_shndx == SHN_UNDEF || sym.st_value == 0) continue;
        const char* name = elf_strptr(elf, sh.sh_link, sym.st_name);
        if (!name || !*name) continue;
        int type = GELF_ST_TYPE(sym.st_info);
        SymbolRange r{sym.st_value + *bias, sym.st_size, type == STT_OBJECT || type == STT_TLS};
        out.by_name_.emplace(name, r);  // first wins: a global's .symtab entry over .dynsym
      }
    }
    if (!out.by_name_.empty()) break;
  }
  elf_end(elf);
  return out;
}

std::optional<SymbolRange> ExeSymbols::lookup(std::string_view name) const {
  auto it = by_name_.find(std::string(name));
  if (it == by_name_.end()) return std::nullopt;
  return it->second;
}

std::string ExeSymbols::name_at(uint64_t addr) const {
  for (const auto& [name, r] : by_name_)
    if (r.is_object && addr >= r.addr && addr < r.addr + r.size)
      return addr == r.addr ? name : name + "+" + std::to_string(addr - r.addr);
  return "";
}

}  // namespace slsdbg::bisect
