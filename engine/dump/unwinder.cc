#include "engine/dump/unwinder.h"

#include <libunwind.h>

#include <cstring>
#include <optional>

// libunwind's DWARF table search; exported by libunwind-x86_64 (the ptrace
// and coredump accessors use it) but not declared in its public header.
extern "C" int _Ux86_64_dwarf_search_unwind_table(unw_addr_space_t as, unw_word_t ip, unw_dyn_info_t* di,
                                                  unw_proc_info_t* pi, int need_unwind_info, void* arg);

namespace slsdbg::dump {

namespace {

struct Context {
  const store::ThreadState& thread;
  MemorySource& memory;
  ModuleCache& modules;
  const std::vector<store::Mapping>& mappings;
  std::optional<Error> damage;  // first failed read inside a mapping
};

bool mapped(const std::vector<store::Mapping>& mappings, uint64_t addr) {
  for (const auto& m : mappings)
    if (addr >= m.start && addr < m.end) return true;
  return false;
}

Context& ctx(void* arg) { return *static_cast<Context*>(arg); }

int find_proc_info(unw_addr_space_t as, unw_word_t ip, unw_proc_info_t* pi, int need_unwind_info, void* arg) {
  auto hdr = ctx(arg).modules.eh_frame_hdr(ip);
  if (!hdr || ip < hdr->text_start || ip >= hdr->text_end) return -UNW_ENOINFO;
  unw_dyn_info_t di{};
  di.format = UNW_INFO_FORMAT_REMOTE_TABLE;
  di.start_ip = hdr->text_start;
  di.end_ip = hdr->text_end;
  di.u.rti.name_ptr = 0;
  di.u.rti.segbase = hdr->hdr_addr;    // the table is relative to .eh_frame_hdr
  di.u.rti.table_data = hdr->table_addr;
  di.u.rti.table_len = hdr->fde_count * 8 / sizeof(unw_word_t);  // two 4-byte words per entry
  return _Ux86_64_dwarf_search_unwind_table(as, ip, &di, pi, need_unwind_info, arg);
}

void put_unwind_info(unw_addr_space_t, unw_proc_info_t*, void*) {}  // libunwind frees table info itself

int get_dyn_info_list_addr(unw_addr_space_t, unw_word_t*, void*) { return -UNW_ENOINFO; }

int access_mem(unw_addr_space_t, unw_word_t addr, unw_word_t* val, int write, void* arg) {
  if (write) return -UNW_EINVAL;  // the image is read-only
  uint64_t v = 0;
  auto st = ctx(arg).memory.read(addr, {reinterpret_cast<uint8_t*>(&v), sizeof v});
  if (!st.ok()) {
    // Outside every mapping is how a garbage frame chain ends; inside one it
    // means the image is damaged, and a backtrace built on it would lie.
    if (mapped(ctx(arg).mappings, addr) && !ctx(arg).damage) ctx(arg).damage = st.error();
    return -UNW_EINVAL;
  }
  *val = v;
  return 0;
}

int access_reg(unw_addr_space_t, unw_regnum_t reg, unw_word_t* val, int write, void* arg) {
  if (write) return -UNW_EREADONLYREG;
  const user_regs_struct& r = ctx(arg).thread.regs;
  switch (reg) {
    case UNW_X86_64_RAX: *val = r.rax; break;
    case UNW_X86_64_RDX: *val = r.rdx; break;
    case UNW_X86_64_RCX: *val = r.rcx; break;
    case UNW_X86_64_RBX: *val = r.rbx; break;
    case UNW_X86_64_RSI: *val = r.rsi; break;
    case UNW_X86_64_RDI: *val = r.rdi; break;
    case UNW_X86_64_RBP: *val = r.rbp; break;
    case UNW_X86_64_RSP: *val = r.rsp; break;
    case UNW_X86_64_R8: *val = r.r8; break;
    case UNW_X86_64_R9: *val = r.r9; break;
    case UNW_X86_64_R10: *val = r.r10; break;
    case UNW_X86_64_R11: *val = r.r11; break;
    case UNW_X86_64_R12: *val = r.r12; break;
    case UNW_X86_64_R13: *val = r.r13; break;
    case UNW_X86_64_R14: *val = r.r14; break;
    case UNW_X86_64_R15: *val = r.r15; break;
    case UNW_X86_64_RIP: *val = r.rip; break;
    default: return -UNW_EBADREG;
  }
  return 0;
}

int access_fpreg(unw_addr_space_t, unw_regnum_t, unw_fpreg_t*, int, void*) { return -UNW_EBADREG; }
int resume(unw_addr_space_t, unw_cursor_t*, void*) { return -UNW_EINVAL; }
int get_proc_name(unw_addr_space_t, unw_word_t, char*, size_t, unw_word_t*, void*) { return -UNW_ENOINFO; }

// x86-64 Linux sigreturn trampoline (__restore_rt): mov $15, %rax; syscall.
// A frame whose pc is here is the signal frame; the frame after it is the
// interrupted pc itself, not a return address.
bool is_sigreturn_trampoline(MemorySource& memory, uint64_t pc) {
  static constexpr uint8_t kCode[] = {0x48, 0xc7, 0xc0, 0x0f, 0x00, 0x00, 0x00, 0x0f, 0x05};
  uint8_t code[sizeof kCode];
  return memory.read(pc, code).ok() && std::memcmp(code, kCode, sizeof kCode) == 0;
}

unw_accessors_t accessors() {
  unw_accessors_t a{};
  a.find_proc_info = find_proc_info;
  a.put_unwind_info = put_unwind_info;
  a.get_dyn_info_list_addr = get_dyn_info_list_addr;
  a.access_mem = access_mem;
  a.access_reg = access_reg;
  a.access_fpreg = access_fpreg;
  a.resume = resume;
  a.get_proc_name = get_proc_name;
  return a;
}

struct AddressSpace {
  unw_addr_space_t as;
  explicit AddressSpace(unw_accessors_t* a) : as(unw_create_addr_space(a, 0)) {}
  ~AddressSpace() {
    if (as) unw_destroy_addr_space(as);
  }
};

}  // namespace

Result<std::vector<Frame>> unwind_thread(const store::ThreadState& thread, MemorySource& memory, ModuleCache& modules,
                                         const UnwindOptions& options) {
  Context c{thread, memory, modules, modules.mappings(), std::nullopt};
  auto acc = accessors();
  AddressSpace space(&acc);
  if (!space.as) return Error::msg("unw_create_addr_space failed");
  unw_set_caching_policy(space.as, UNW_CACHE_NONE);
  unw_cursor_t cursor;
  int rc = unw_init_remote(&cursor, space.as, &c);
  if (rc < 0) return Error::msg(std::string("unw_init_remote: ") + unw_strerror(rc));

  std::vector<Frame> frames;
  bool caller_frame = false;  // pc is a return address: symbolize pc-1
  while (frames.size() < options.max_frames) {
    Frame f;
    unw_word_t pc = 0, sp = 0;
    unw_get_reg(&cursor, UNW_REG_IP, &pc);
    unw_get_reg(&cursor, UNW_REG_SP, &sp);
    if (pc == 0) break;
    f.pc = pc;
    f.sp = sp;
    f.cfa = sp;
    f.kind = is_sigreturn_trampoline(memory, pc) ? FrameKind::Signal : FrameKind::Normal;
    f.where = modules.symbolize(caller_frame && f.kind == FrameKind::Normal ? pc - 1 : pc);
    if (caller_frame && f.kind == FrameKind::Normal) f.where.offset += 1;
    frames.push_back(f);
    // The signal frame's successor is the interrupted pc itself, not a return address.
    caller_frame = f.kind != FrameKind::Signal;
    rc = unw_step(&cursor);
    if (rc <= 0) break;
    unw_word_t next_sp = 0;
    unw_get_reg(&cursor, UNW_REG_SP, &next_sp);
    if (next_sp < sp && f.kind == FrameKind::Normal) break;  // a caller's frame lies above: corrupt stack
  }
  if (c.damage) return *c.damage;
  if (frames.empty()) return Error::msg("cannot unwind: no valid pc in thread " + std::to_string(thread.tid.value));
  return frames;
}

}  // namespace slsdbg::dump
