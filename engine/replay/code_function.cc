#include "engine/replay/code_function.h"

#include <capstone/capstone.h>
#include <elf.h>

#include <algorithm>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>

#include "engine/replay/jump_table.h"
#include "engine/replay/trampoline_code.h"
#include "engine/replay/vex_insn.h"
#include "process/syscallbuf_stub.h"

namespace slsdbg::replay {

namespace {

constexpr uint64_t kPage = 4096;
// How far below pc the module's ELF header may lie (a text segment's size).
constexpr uint64_t kMaxModule = 256ull << 20;

template <class T>
bool read_as(const CodeReader& read, uint64_t addr, T& out) {
  return read(addr, {reinterpret_cast<uint8_t*>(&out), sizeof out});
}

// Whether the module whose ELF header is at `base` spans pc, by its own
// program headers (its PT_LOAD segments, from the lowest to the end of the
// highest).
bool module_covers(uint64_t base, uint64_t pc, const CodeReader& read) {
  Elf64_Ehdr eh;
  if (!read_as(read, base, eh) || std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
      eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_phnum == 0 || eh.e_phnum > 64)
    return false;
  std::vector<Elf64_Phdr> ph(eh.e_phnum);
  if (!read(base + eh.e_phoff, {reinterpret_cast<uint8_t*>(ph.data()), ph.size() * sizeof(Elf64_Phdr)})) return false;
  uint64_t first = UINT64_MAX, end = 0;
  for (const Elf64_Phdr& p : ph)
    if (p.p_type == PT_LOAD) {
      first = std::min<uint64_t>(first, p.p_vaddr);
      end = std::max<uint64_t>(end, p.p_vaddr + p.p_memsz);
    }
  if (first == UINT64_MAX) return false;
  const uint64_t bias = base - (first & ~(kPage - 1));
  return pc >= base && pc < bias + end;
}

// Module headers found before: a pc of the same module finds its header
// without the scan below, once its program headers say the module spans it.
std::mutex bases_mu;
std::set<uint64_t> known_bases;

Result<uint64_t> scan_module_base(uint64_t pc, const CodeReader& read);

// The lowest page of the module holding pc: a known module's that spans pc,
// else scan_module_base's.
Result<uint64_t> module_base(uint64_t pc, const CodeReader& read) {
  std::optional<uint64_t> known;
  {
    const std::lock_guard lock(bases_mu);
    auto it = known_bases.upper_bound(pc);
    if (it != known_bases.begin()) known = *std::prev(it);
  }
  if (known && pc - *known < kMaxModule && module_covers(*known, pc, read)) return *known;
  const uint64_t base = TRY(scan_module_base(pc, read));
  const std::lock_guard lock(bases_mu);
  if (known_bases.size() >= 4096) known_bases.clear();  // a bound for long-lived processes (tests)
  known_bases.insert(base);
  return base;
}

// The first page below pc that starts with an ELF header, within one run
// of readable pages and kMaxModule of pc. Read 64 pages at a time (node's
// text puts its pcs ~5,000 pages above its header: a read per page took
// ~35 ms per breakpoint), a page at a time where a chunk does not read
// whole (the run's end lies in it).
Result<uint64_t> scan_module_base(uint64_t pc, const CodeReader& read) {
  constexpr uint64_t kChunkPages = 64;
  const uint64_t lowest = pc > kMaxModule ? ((pc - kMaxModule) & ~(kPage - 1)) + kPage : kPage;
  std::vector<uint8_t> chunk(kChunkPages * kPage);
  auto is_header = [](const uint8_t* p) { return std::memcmp(p, ELFMAG, SELFMAG) == 0; };
  for (uint64_t page = pc & ~(kPage - 1); page >= lowest;) {
    const uint64_t n = std::min<uint64_t>(kChunkPages, (page - lowest) / kPage + 1);
    const uint64_t lo = page - (n - 1) * kPage;
    if (read(lo, {chunk.data(), n * kPage})) {
      for (uint64_t p = page + kPage; p > lo;) {
        p -= kPage;
        if (is_header(chunk.data() + (p - lo))) return p;
      }
    } else {
      for (uint64_t p = page + kPage; p > lo;) {  // the first page that does not read ends the run
        p -= kPage;
        uint8_t magic[4];
        if (!read(p, magic)) return Error::msg("no ELF header below " + hex_addr(pc));
        if (is_header(magic)) return p;
      }
    }
    if (lo == lowest) break;
    page = lo - kPage;
  }
  return Error::msg("no ELF header below " + hex_addr(pc));
}

}  // namespace

Result<CodeFunction> function_around(uint64_t pc, const CodeReader& read) {
  const uint64_t base = TRY(module_base(pc, read));
  Elf64_Ehdr eh;
  if (!read_as(read, base, eh) || eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_phentsize != sizeof(Elf64_Phdr) ||
      eh.e_phnum == 0 || eh.e_phnum > 64)
    return Error::msg("unexpected ELF header at " + hex_addr(base));
  uint64_t first_load = UINT64_MAX, hdr_vaddr = 0;
  bool has_hdr = false;
  for (uint16_t i = 0; i < eh.e_phnum; i++) {
    Elf64_Phdr ph;
    if (!read_as(read, base + eh.e_phoff + i * sizeof ph, ph)) return Error::msg("program headers not mapped");
    if (ph.p_type == PT_LOAD && ph.p_vaddr < first_load) first_load = ph.p_vaddr;
    if (ph.p_type == PT_GNU_EH_FRAME) {
      hdr_vaddr = ph.p_vaddr;
      has_hdr = true;
    }
  }
  if (!has_hdr || first_load == UINT64_MAX) return Error::msg("no .eh_frame_hdr in the module at " + hex_addr(base));
  const uint64_t bias = base - (first_load & ~(kPage - 1));
  const uint64_t hdr = bias + hdr_vaddr;
  // version 1; eh_frame_ptr pcrel|sdata4; fde_count udata4; table datarel|sdata4.
  uint8_t head[12];
  if (!read(hdr, head)) return Error::msg(".eh_frame_hdr not mapped");
  if (head[0] != 1 || head[1] != 0x1b || head[2] != 0x03 || head[3] != 0x3b)
    return Error::msg("unsupported .eh_frame_hdr encoding at " + hex_addr(hdr));
  uint32_t count = 0;
  std::memcpy(&count, head + 8, 4);
  // The last entry whose initial location is at or below pc.
  struct Entry {
    int32_t loc, fde;
  };
  uint64_t lo = 0, hi = count;  // invariant: entries below lo start at or below pc
  Entry found{};
  bool any = false;
  while (lo < hi) {
    const uint64_t mid = lo + (hi - lo) / 2;
    Entry e;
    if (!read_as(read, hdr + 12 + mid * sizeof(Entry), e)) return Error::msg(".eh_frame_hdr table not mapped");
    if (hdr + static_cast<int64_t>(e.loc) <= pc) {
      found = e;
      any = true;
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  if (!any) return Error::msg("no FDE covers " + hex_addr(pc));
  // The FDE: length, CIE pointer, pc_begin (pcrel sdata4), pc_range (4 bytes).
  const uint64_t fde = hdr + static_cast<int64_t>(found.fde);
  uint32_t f[4];
  if (!read_as(read, fde, f)) return Error::msg("FDE not mapped");
  const uint64_t start = hdr + static_cast<int64_t>(found.loc);
  const uint64_t begin = fde + 8 + static_cast<int64_t>(static_cast<int32_t>(f[2]));
  if (f[0] == 0xffffffffu || begin != start) return Error::msg("unsupported FDE encoding at " + hex_addr(fde));
  if (pc >= start + f[3]) return Error::msg("no FDE covers " + hex_addr(pc));
  return CodeFunction{start, start + f[3]};
}

namespace {

constexpr uint64_t kMaxFunction = 256 * 1024;

bool in_group(const cs_insn& insn, uint8_t group) {
  for (uint8_t i = 0; i < insn.detail->groups_count; i++)
    if (insn.detail->groups[i] == group) return true;
  return false;
}

// Capstone with details over `code`, which lies at `at`: one instruction a call.
class Decoder {
 public:
  Decoder(std::span<const uint8_t> code, uint64_t at) : p_(code.data()), left_(code.size()), addr_(at) {
    open_ = cs_open(CS_ARCH_X86, CS_MODE_64, &h_) == CS_ERR_OK;
    if (!open_) return;
    cs_option(h_, CS_OPT_DETAIL, CS_OPT_ON);
    insn_ = cs_malloc(h_);
  }
  ~Decoder() {
    if (insn_) cs_free(insn_, 1);
    if (open_) cs_close(&h_);
  }
  Decoder(const Decoder&) = delete;
  Decoder& operator=(const Decoder&) = delete;
  bool ok() const { return insn_ != nullptr; }
  bool done() const { return left_ == 0; }
  uint64_t here() const { return addr_; }  // where next() decodes
  csh handle() const { return h_; }
  // Null where the bytes do not decode (or are cut by the end).
  const cs_insn* next() { return cs_disasm_iter(h_, &p_, &left_, &addr_, insn_) ? insn_ : nullptr; }
  // After next() failed: a VEX/EVEX instruction Capstone does not know
  // (vex_insn.h), stepped over, as a plain instruction; else nullopt.
  std::optional<DecodedFunction::Insn> skip_vex() {
    const std::optional<VexInsn> v = decode_vex({p_, left_});
    if (!v) return std::nullopt;
    DecodedFunction::Insn i;
    i.at = addr_;
    i.size = v->size;
    i.plain = true;
    p_ += v->size;
    left_ -= v->size;
    addr_ += v->size;
    return i;
  }

 private:
  csh h_ = 0;
  bool open_ = false;
  cs_insn* insn_ = nullptr;
  const uint8_t* p_;
  size_t left_;
  uint64_t addr_;
};

// What the planners need of one instruction at `at`.
DecodedFunction::Insn classify(const cs_insn& insn, uint64_t at) {
  const bool jump = in_group(insn, X86_GRP_JUMP), call = in_group(insn, X86_GRP_CALL);
  const bool ret = in_group(insn, X86_GRP_RET) || in_group(insn, X86_GRP_IRET);
  const bool special = in_group(insn, X86_GRP_INT) || insn.id == X86_INS_SYSCALL || insn.id == X86_INS_SYSENTER ||
                       insn.id == X86_INS_UD2 || insn.id == X86_INS_HLT || insn.id == X86_INS_INT3;
  DecodedFunction::Insn i;
  i.at = at;
  i.size = static_cast<uint8_t>(insn.size);
  i.plain = !jump && !call && !ret && !special;
  i.ends_flow = insn.id == X86_INS_JMP || ret;
  i.is_ret = ret;
  i.padding = insn.id == X86_INS_NOP || insn.id == X86_INS_INT3;
  i.int3 = insn.id == X86_INS_INT3;
  const cs_x86& x = insn.detail->x86;
  const bool direct = x.op_count == 1 && x.operands[0].type == X86_OP_IMM;
  if (call && direct) i.call_target = static_cast<uint64_t>(x.operands[0].imm);
  if (jump && direct) i.jump_target = static_cast<uint64_t>(x.operands[0].imm);
  return i;
}

}  // namespace

const DecodedFunction::Insn* DecodedFunction::at(uint64_t pc) const {
  auto it = std::lower_bound(insns.begin(), insns.end(), pc, [](const Insn& i, uint64_t a) { return i.at < a; });
  return it != insns.end() && it->at == pc ? &*it : nullptr;
}

namespace {

// Functions decoded before, by a pc inside them: every segment of a reverse
// scan plans the same checkpoint pcs' patches in a freshly restored process
// (the search through .eh_frame_hdr alone is ~30 reads of the tracee). One
// read of the function's bytes tells whether the entry still holds: the
// decode depends on nothing else, but for jump tables (read from data),
// whose functions are not kept.
struct Decoded {
  std::vector<uint8_t> code;
  DecodedFunction d;
};
std::mutex decoded_mu;
std::map<uint64_t, std::shared_ptr<const Decoded>> decoded;  // by pc
constexpr size_t kMaxDecoded = 1024;

std::shared_ptr<const Decoded> decoded_at(uint64_t pc) {
  const std::lock_guard lock(decoded_mu);
  auto it = decoded.find(pc);
  return it == decoded.end() ? nullptr : it->second;
}

void keep_decoded(uint64_t pc, std::vector<uint8_t> code, const DecodedFunction& d) {
  const std::lock_guard lock(decoded_mu);
  if (decoded.size() >= kMaxDecoded) decoded.clear();
  decoded[pc] = std::make_shared<const Decoded>(Decoded{std::move(code), d});
}

Result<DecodedFunction> decode_function_uncached(uint64_t pc, const CodeReader& read, std::vector<uint8_t>& code);

}  // namespace

Result<DecodedFunction> decode_function(uint64_t pc, const CodeReader& read) {
  if (std::shared_ptr<const Decoded> known = decoded_at(pc)) {
    std::vector<uint8_t> now(known->code.size());
    if (read(known->d.range.start, now) && now == known->code) return known->d;
  }
  std::vector<uint8_t> code;
  DecodedFunction d = TRY(decode_function_uncached(pc, read, code));
  if (d.jump_tables == 0) keep_decoded(pc, std::move(code), d);
  return d;
}

namespace {

Result<DecodedFunction> decode_function_uncached(uint64_t pc, const CodeReader& read, std::vector<uint8_t>& code) {
  DecodedFunction d;
  // The syscall buffer's stub (in no module: no ELF header) is one function
  // of known bounds, entered at the two addresses its pointers hold; without
  // it a reverse step there single-stepped from the segment's last event
  // (gzip: 900,000 steps, 43 s).
  const process::SysbufStubLayout stub = process::sysbuf_stub_layout();
  if (stub.contains(pc)) d.range = CodeFunction{stub.code_begin, stub.code_end};
  else d.range = TRY(function_around(pc, read));
  if (d.range.end - d.range.start > kMaxFunction) return Error::msg("the function at " + hex_addr(d.range.start) + " is too long to decode");
  code.resize(d.range.end - d.range.start);
  if (!read(d.range.start, code)) return Error::msg("the function at " + hex_addr(d.range.start) + " is not mapped whole");
  Decoder dec(code, d.range.start);
  if (!dec.ok()) return Error::msg("capstone: cs_open failed");
  const csh h = dec.handle();
  bool failed = false;
  std::deque<OpsInsn> recent;                 // the last instructions, for a dispatch's pattern
  std::vector<std::vector<OpsInsn>> dispatches;  // each ends with an indirect jump
  std::vector<RipLea> leas;
  while (!dec.done()) {
    const uint64_t at = dec.here();
    const cs_insn* insn = dec.next();
    if (!insn) {
      const std::optional<DecodedFunction::Insn> v = dec.skip_vex();
      if (!v) {
        failed = true;
        break;
      }
      recent.push_back(OpsInsn{at, v->size, X86_INS_INVALID, ~0u, {}});  // writes unknown: no table's pattern
      if (recent.size() > kDispatchWindow) recent.pop_front();
      d.insns.push_back(*v);
      continue;
    }
    const bool jump = in_group(*insn, X86_GRP_JUMP), call = in_group(*insn, X86_GRP_CALL);
    const DecodedFunction::Insn i = classify(*insn, at);
    const cs_x86& x = insn->detail->x86;
    const bool direct = x.op_count == 1 && x.operands[0].type == X86_OP_IMM;
    OpsInsn ops{at, i.size, insn->id, 0, x};
    cs_regs regs_read, regs_write;
    uint8_t n_read = 0, n_write = 0;
    if (cs_regs_access(h, insn, regs_read, &n_read, regs_write, &n_write) == CS_ERR_OK) {
      for (uint8_t r = 0; r < n_write; r++) ops.writes |= gpr_bit(regs_write[r]);
    } else {
      ops.writes = ~0u;  // unknown: may write anything
    }
    if (insn->id == X86_INS_LEA && x.op_count == 2 && x.operands[1].type == X86_OP_MEM &&
        x.operands[1].mem.base == X86_REG_RIP && x.operands[1].mem.index == X86_REG_INVALID)
      leas.push_back(RipLea{at, gpr_bit(x.operands[0].reg), at + insn->size + static_cast<uint64_t>(x.operands[1].mem.disp)});
    recent.push_back(ops);
    if (recent.size() > kDispatchWindow) recent.pop_front();
    if (jump || call) {
      if (direct) d.targets.insert(static_cast<uint64_t>(x.operands[0].imm));
      else if (insn->id == X86_INS_JMP) dispatches.emplace_back(recent.begin(), recent.end());
    }
    d.insns.push_back(i);
  }
  if (failed) return Error::msg("cannot decode the function at " + hex_addr(d.range.start));
  // A switch's table adds its entries as targets; any other indirect jump
  // could go anywhere. A direct branch into the dispatch after its bound
  // could bring an unbounded index.
  std::set<uint64_t> table_targets;
  for (const std::vector<OpsInsn>& w : dispatches) {
    std::optional<JumpTable> t = jump_table_targets(w, leas, read);
    const uint64_t jmp = w.back().at;
    if (!t || d.targets.lower_bound(t->unguarded_from) != d.targets.upper_bound(jmp)) {
      d.indirect_jump = true;
      continue;
    }
    table_targets.insert(t->targets.begin(), t->targets.end());
    d.jump_tables++;
  }
  d.targets.insert(table_targets.begin(), table_targets.end());
  d.table_targets = std::move(table_targets);
  if (stub.contains(pc))
    for (uint64_t ptr : {process::kSysbufPtrWide, process::kSysbufPtrNarrow})
      if (uint64_t entry = 0; read_as(read, ptr, entry)) d.targets.insert(entry);
  return d;
}

}  // namespace

Result<DecodedFunction> decode_ahead(uint64_t pc, uint64_t bytes, const CodeReader& read) {
  // As much of [pc, pc + bytes) as is mapped, a page at a time.
  std::vector<uint8_t> code;
  for (uint64_t at = pc; at < pc + bytes;) {
    const uint64_t chunk = std::min(pc + bytes, (at & ~(kPage - 1)) + kPage) - at;
    std::vector<uint8_t> part(chunk);
    if (!read(at, part)) break;
    code.insert(code.end(), part.begin(), part.end());
    at += chunk;
  }
  if (code.empty()) return Error::msg("the code at " + hex_addr(pc) + " is not mapped");
  Decoder dec(code, pc);
  if (!dec.ok()) return Error::msg("capstone: cs_open failed");
  DecodedFunction d;
  while (!dec.done()) {
    const uint64_t at = dec.here();
    const cs_insn* insn = dec.next();
    if (!insn) {
      const std::optional<DecodedFunction::Insn> v = dec.skip_vex();
      if (!v) break;  // data, or an instruction cut by the end
      d.insns.push_back(*v);
      continue;
    }
    const DecodedFunction::Insn i = classify(*insn, at);
    if (i.call_target) d.targets.insert(*i.call_target);
    if (i.jump_target) d.targets.insert(*i.jump_target);
    d.insns.push_back(i);
  }
  if (d.insns.empty()) return Error::msg("cannot decode the instruction at " + hex_addr(pc));
  d.range = CodeFunction{pc, d.insns.back().at + d.insns.back().size};
  d.whole = false;
  return d;
}

}  // namespace slsdbg::replay
