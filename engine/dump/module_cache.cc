#include "engine/dump/module_cache.h"

#include <elfutils/libdw.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "store/pack_layout.h"

namespace slsdbg::dump {

namespace {

struct Symbol {
  uint64_t value = 0;  // ELF vaddr
  uint64_t size = 0;
  std::string name;
};

}  // namespace

// One ELF image. Owns the file descriptor (or the vDSO bytes) behind Elf*.
class Module {
 public:
  ~Module() {
    if (dwarf_) dwarf_end(dwarf_);
    if (elf_) elf_end(elf_);
    if (fd_ >= 0) ::close(fd_);
  }

  enum class DebugLookup { No, Yes };

  static std::unique_ptr<Module> from_file(const std::string& path, DebugLookup lookup = DebugLookup::Yes) {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return nullptr;
    auto m = std::make_unique<Module>();
    m->fd_ = fd;
    m->elf_ = elf_begin(fd, ELF_C_READ_MMAP, nullptr);
    if (!m->init()) return nullptr;
    // Stripped files (Debian's libc): symbols and lines from the separate
    // debug file named by the build id, where installed (libc6-dbg).
    std::string id = lookup == DebugLookup::Yes && !m->has_symtab_ ? m->build_id() : "";
    if (!id.empty()) {
      std::string debug = "/usr/lib/debug/.build-id/" + id.substr(0, 2) + "/" + id.substr(2) + ".debug";
      if (::access(debug.c_str(), R_OK) == 0) m->debug_ = from_file(debug, DebugLookup::No);
    }
    return m;
  }

  static std::unique_ptr<Module> from_bytes(std::vector<uint8_t> bytes) {
    auto m = std::make_unique<Module>();
    m->bytes_ = std::move(bytes);
    m->elf_ = elf_memory(reinterpret_cast<char*>(m->bytes_.data()), m->bytes_.size());
    return m->init() ? std::move(m) : nullptr;
  }

  // Bias of a mapping of this file starting at `start` with file offset `off`.
  uint64_t bias_for(uint64_t start, uint64_t off) const {
    for (const auto& ph : loads_)
      if (off >= page_floor(ph.p_offset) && off < ph.p_offset + std::max(ph.p_filesz, uint64_t{1}))
        return start - off - (ph.p_vaddr - ph.p_offset);
    return start - off;
  }

  const Symbol* find_symbol(uint64_t vaddr) const {
    if (debug_ && !debug_->symbols_.empty()) return debug_->find_symbol(vaddr);
    auto it = std::upper_bound(symbols_.begin(), symbols_.end(), vaddr,
                               [](uint64_t v, const Symbol& s) { return v < s.value; });
    if (it == symbols_.begin()) return nullptr;
    --it;
    // Zero-sized symbols (hand-written assembly) cover up to the next symbol.
    if (it->size != 0 && vaddr >= it->value + it->size) return nullptr;
    return &*it;
  }

  bool source_line(uint64_t vaddr, std::string* file, int* line) {
    if (debug_ && debug_->source_line(vaddr, file, line)) return true;
    if (!dwarf_tried_) {
      dwarf_tried_ = true;
      dwarf_ = dwarf_begin_elf(elf_, DWARF_C_READ, nullptr);
    }
    if (!dwarf_) return false;
    Dwarf_Die cu;
    if (!dwarf_addrdie(dwarf_, vaddr, &cu)) return false;
    Dwarf_Line* l = dwarf_getsrc_die(&cu, vaddr);
    if (!l) return false;
    const char* src = dwarf_linesrc(l, nullptr, nullptr);
    if (!src || dwarf_lineno(l, line) != 0) return false;
    *file = src;
    return true;
  }

  std::optional<EhFrameHdr> eh_frame_hdr(uint64_t bias, MemorySource& memory) const {
    if (!has_eh_frame_hdr_) return std::nullopt;
    EhFrameHdr out;
    for (const auto& ph : loads_)
      if (ph.p_flags & PF_X) {
        out.text_start = ph.p_vaddr + bias;
        out.text_end = ph.p_vaddr + ph.p_memsz + bias;
      }
    // .eh_frame_hdr: version, eh_frame_ptr_enc, fde_count_enc, table_enc,
    // eh_frame_ptr, fde_count, table. Read from the memory image.
    out.hdr_addr = eh_frame_hdr_.p_vaddr + bias;
    uint8_t head[4];
    if (!memory.read(out.hdr_addr, head).ok() || head[0] != 1) return std::nullopt;
    constexpr uint8_t kUdata4 = 0x03, kSdata4 = 0x0b, kPcrel = 0x10, kDatarel = 0x30;
    if (head[1] != (kPcrel | kSdata4) || head[2] != kUdata4 || head[3] != (kDatarel | kSdata4)) return std::nullopt;
    uint32_t count = 0;
    if (!memory.read(out.hdr_addr + 8, {reinterpret_cast<uint8_t*>(&count), 4}).ok()) return std::nullopt;
    out.fde_count = count;
    out.table_addr = out.hdr_addr + 12;
    return out;
  }

 private:
  bool init() {
    if (!elf_ || elf_kind(elf_) != ELF_K_ELF) return false;
    size_t n = 0;
    if (elf_getphdrnum(elf_, &n) != 0) return false;
    for (size_t i = 0; i < n; i++) {
      GElf_Phdr ph;
      if (!gelf_getphdr(elf_, static_cast<int>(i), &ph)) continue;
      if (ph.p_type == PT_LOAD) loads_.push_back(ph);
      if (ph.p_type == PT_GNU_EH_FRAME) {
        eh_frame_hdr_ = ph;
        has_eh_frame_hdr_ = true;
      }
    }
    read_symbols(SHT_SYMTAB);
    has_symtab_ = !symbols_.empty();
    if (!has_symtab_) read_symbols(SHT_DYNSYM);
    std::sort(symbols_.begin(), symbols_.end(), [](const Symbol& a, const Symbol& b) {
      return a.value != b.value ? a.value < b.value : a.size > b.size;
    });
    return true;
  }

  std::string build_id() const {
    Elf_Scn* scn = nullptr;
    while ((scn = elf_nextscn(elf_, scn)) != nullptr) {
      GElf_Shdr sh;
      if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE) continue;
      Elf_Data* data = elf_getdata(scn, nullptr);
      if (!data) continue;
      GElf_Nhdr nh;
      size_t off = 0, name_off = 0, desc_off = 0;
      while ((off = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
        if (nh.n_type != NT_GNU_BUILD_ID || nh.n_namesz != 4 ||
            std::memcmp(static_cast<char*>(data->d_buf) + name_off, "GNU", 4) != 0)
          continue;
        std::string hex;
        char b[3];
        for (size_t i = 0; i < nh.n_descsz; i++) {
          std::snprintf(b, sizeof b, "%02x", static_cast<unsigned char*>(data->d_buf)[desc_off + i]);
          hex += b;
        }
        return hex;
      }
    }
    return "";
  }

  void read_symbols(Elf64_Word type) {
    Elf_Scn* scn = nullptr;
    while ((scn = elf_nextscn(elf_, scn)) != nullptr) {
      GElf_Shdr sh;
      if (!gelf_getshdr(scn, &sh) || sh.sh_type != type || sh.sh_entsize == 0) continue;
      Elf_Data* data = elf_getdata(scn, nullptr);
      if (!data) continue;
      size_t count = sh.sh_size / sh.sh_entsize;
      for (size_t i = 0; i < count; i++) {
        GElf_Sym sym;
        if (!gelf_getsym(data, static_cast<int>(i), &sym)) continue;
        int t = GELF_ST_TYPE(sym.st_info);
        if ((t != STT_FUNC && t != STT_GNU_IFUNC) || sym.st_shndx == SHN_UNDEF || sym.st_value == 0) continue;
        const char* name = elf_strptr(elf_, sh.sh_link, sym.st_name);
        if (!name || !*name) continue;
        symbols_.push_back(Symbol{sym.st_value, sym.st_size, name});
      }
    }
  }

  int fd_ = -1;
  std::vector<uint8_t> bytes_;
  Elf* elf_ = nullptr;
  Dwarf* dwarf_ = nullptr;
  bool dwarf_tried_ = false;
  std::vector<GElf_Phdr> loads_;
  GElf_Phdr eh_frame_hdr_{};
  bool has_eh_frame_hdr_ = false;
  std::vector<Symbol> symbols_;
  bool has_symtab_ = false;
  std::unique_ptr<Module> debug_;  // separate debug file, if any
};

ModuleCache::ModuleCache(const store::ProcessState& state, MemorySource& memory, std::string recording_dir)
    : state_(state), memory_(memory), recording_dir_(std::move(recording_dir)) {
  elf_version(EV_CURRENT);
}

ModuleCache::~ModuleCache() = default;

Module* ModuleCache::module_at(uint64_t pc, uint64_t* bias) {
  const store::Mapping* hit = nullptr;
  for (const auto& m : state_.mappings)
    if (pc >= m.start && pc < m.end) hit = &m;
  if (!hit) return nullptr;
  bool vdso = hit->path == "[vdso]";
  if (!vdso && (hit->path.empty() || hit->path[0] != '/')) return nullptr;
  auto it = modules_.find(hit->path);
  if (it == modules_.end()) {
    std::unique_ptr<Module> mod;
    if (vdso) {
      std::vector<uint8_t> bytes(hit->end - hit->start);
      if (memory_.read(hit->start, bytes).ok()) mod = Module::from_bytes(std::move(bytes));
    } else {
      mod = Module::from_file(store::packed_or_original(recording_dir_, hit->path));
    }
    it = modules_.emplace(hit->path, std::move(mod)).first;
  }
  if (!it->second) return nullptr;
  *bias = vdso ? hit->start : it->second->bias_for(hit->start, hit->file_offset);
  return it->second.get();
}

Symbolized ModuleCache::symbolize(uint64_t pc) {
  Symbolized out;
  for (const auto& m : state_.mappings)
    if (pc >= m.start && pc < m.end) out.module = m.path;
  uint64_t bias = 0;
  Module* mod = module_at(pc, &bias);
  if (!mod) return out;
  uint64_t vaddr = pc - bias;
  if (const Symbol* s = mod->find_symbol(vaddr)) {
    out.function = s->name;
    out.offset = vaddr - s->value;
    out.function_start = s->value + bias;
  }
  mod->source_line(vaddr, &out.file, &out.line);
  return out;
}

std::optional<EhFrameHdr> ModuleCache::eh_frame_hdr(uint64_t pc) {
  uint64_t bias = 0;
  Module* mod = module_at(pc, &bias);
  if (!mod) return std::nullopt;
  return mod->eh_frame_hdr(bias, memory_);
}

}  // namespace slsdbg::dump
