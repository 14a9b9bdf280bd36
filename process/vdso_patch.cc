#include "process/vdso_patch.h"

#include <elf.h>
#include <sys/syscall.h>

#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "process/remote_memory.h"
#include "process/syscallbuf_stub.h"

namespace slsdbg::process {

namespace {

struct VdsoRange {
  uint64_t start = 0, end = 0;
};

Result<VdsoRange> find_vdso(pid_t pid) {
  std::ifstream maps("/proc/" + std::to_string(pid) + "/maps");
  if (!maps) return Error::msg("cannot read /proc/" + std::to_string(pid) + "/maps");
  std::string line;
  while (std::getline(maps, line)) {
    if (line.find("[vdso]") == std::string::npos) continue;
    VdsoRange r;
    std::sscanf(line.c_str(), "%lx-%lx", &r.start, &r.end);
    return r;
  }
  return VdsoRange{};
}

struct Target {
  const char* name;
  long nr;
};

constexpr Target kTargets[] = {
    {"__vdso_clock_gettime", SYS_clock_gettime}, {"clock_gettime", SYS_clock_gettime},
    {"__vdso_gettimeofday", SYS_gettimeofday},   {"gettimeofday", SYS_gettimeofday},
    {"__vdso_time", SYS_time},                   {"time", SYS_time},
    {"__vdso_clock_getres", SYS_clock_getres},   {"clock_getres", SYS_clock_getres},
    {"__vdso_getcpu", SYS_getcpu},               {"getcpu", SYS_getcpu},
};

// The calls the buffer's stub can log (its fast path serves them).
bool bufferable_clock_read(long nr) {
  return nr == SYS_clock_gettime || nr == SYS_clock_getres || nr == SYS_gettimeofday || nr == SYS_time;
}

// `mov eax, NR; syscall; ret`, or `mov eax, NR; call *ptr; ret` into the
// stub's narrow entry, which returns with what `syscall; cmp $0xfffff000,
// %eax` would leave (rcx, r11 and flags are the caller's to lose anyway).
std::vector<uint8_t> entry_code(long nr, VdsoRoute route) {
  const uint32_t nr32 = static_cast<uint32_t>(nr);
  std::vector<uint8_t> code = {0xb8, 0, 0, 0, 0};
  std::memcpy(code.data() + 1, &nr32, 4);
  if (route == VdsoRoute::ThroughSyscallBuffer && bufferable_clock_read(nr)) {
    const uint32_t ptr = static_cast<uint32_t>(kSysbufPtrNarrow);
    code.insert(code.end(), {0xff, 0x14, 0x25, 0, 0, 0, 0});
    std::memcpy(code.data() + code.size() - 4, &ptr, 4);
  } else {
    code.insert(code.end(), {0x0f, 0x05});
  }
  code.push_back(0xc3);
  return code;
}

}  // namespace

Result<int> patch_vdso_time_functions(pid_t pid, VdsoRoute route) {
  VdsoRange vdso = TRY(find_vdso(pid));
  if (vdso.start == 0) return 0;
  VmReader mem(pid);
  std::vector<uint8_t> image = TRY_CTX(mem.read_bytes(vdso.start, vdso.end - vdso.start), "reading the vDSO");
  auto in_image = [&](uint64_t off, uint64_t len) { return off <= image.size() && len <= image.size() - off; };
  if (!in_image(0, sizeof(Elf64_Ehdr))) return Error::msg("vDSO: image too small");
  Elf64_Ehdr eh;
  std::memcpy(&eh, image.data(), sizeof eh);
  if (std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0) return Error::msg("vDSO: not an ELF image");
  if (!in_image(eh.e_shoff, uint64_t{eh.e_shnum} * sizeof(Elf64_Shdr))) return Error::msg("vDSO: bad section table");
  // The vDSO is linked at some base; addresses are relative to its first PT_LOAD.
  uint64_t link_base = 0;
  for (int i = 0; i < eh.e_phnum; i++) {
    Elf64_Phdr ph;
    if (!in_image(eh.e_phoff + i * sizeof ph, sizeof ph)) break;
    std::memcpy(&ph, image.data() + eh.e_phoff + i * sizeof ph, sizeof ph);
    if (ph.p_type == PT_LOAD) {
      link_base = ph.p_vaddr - ph.p_offset;
      break;
    }
  }
  int patched = 0;
  for (int i = 0; i < eh.e_shnum; i++) {
    Elf64_Shdr sh;
    std::memcpy(&sh, image.data() + eh.e_shoff + i * sizeof sh, sizeof sh);
    if (sh.sh_type != SHT_DYNSYM || sh.sh_link >= eh.e_shnum) continue;
    Elf64_Shdr strsh;
    std::memcpy(&strsh, image.data() + eh.e_shoff + sh.sh_link * sizeof strsh, sizeof strsh);
    if (!in_image(sh.sh_offset, sh.sh_size) || !in_image(strsh.sh_offset, strsh.sh_size)) continue;
    for (uint64_t off = 0; off + sizeof(Elf64_Sym) <= sh.sh_size; off += sizeof(Elf64_Sym)) {
      Elf64_Sym sym;
      std::memcpy(&sym, image.data() + sh.sh_offset + off, sizeof sym);
      if (ELF64_ST_TYPE(sym.st_info) != STT_FUNC || sym.st_value == 0 || sym.st_name >= strsh.sh_size) continue;
      const char* name = reinterpret_cast<const char*>(image.data() + strsh.sh_offset + sym.st_name);
      for (const Target& t : kTargets) {
        if (std::strncmp(name, t.name, strsh.sh_size - sym.st_name) != 0) continue;
        const std::vector<uint8_t> stub = entry_code(t.nr, route);
        if (sym.st_size != 0 && sym.st_size < stub.size()) return Error::msg(std::string("vDSO: ") + name + " too small to patch");
        const uint64_t addr = vdso.start + (sym.st_value - link_base);
        if (addr + stub.size() > vdso.end) return Error::msg(std::string("vDSO: ") + name + " outside the vDSO");
        TRY_CTX(write_remote(pid, addr, stub.data(), stub.size()), std::string("patching vDSO ") + name);
        patched++;
      }
    }
  }
  return patched;
}

}  // namespace slsdbg::process
