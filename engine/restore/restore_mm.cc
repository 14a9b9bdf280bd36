// brk and the kernel's layout fields via prctl(PR_SET_MM_MAP), which needs no
// capability unless /proc/PID/exe is changed too (CAP_CHECKPOINT_RESTORE or
// CAP_SYS_ADMIN). Without it the fields fall back to PR_SET_MM_START_BRK /
// PR_SET_MM_BRK (CAP_SYS_RESOURCE); failures become warnings.
#include <fcntl.h>
#include <linux/prctl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#include <cstring>
#include <vector>

#include "engine/restore/mm_layout.h"
#include "engine/restore/restore_steps.h"
#include "store/pack_layout.h"

namespace slsdbg::restore {

namespace {

std::vector<uint8_t> encode_map(const MmLayout& l, uint64_t auxv_addr, uint32_t auxv_size, int32_t exe_fd) {
  struct prctl_mm_map map;
  std::memset(&map, 0, sizeof map);
  map.start_code = l.start_code;
  map.end_code = l.end_code;
  map.start_data = l.start_data;
  map.end_data = l.end_data;
  map.start_brk = l.start_brk;
  map.brk = l.brk;
  map.start_stack = l.start_stack;
  map.arg_start = l.arg_start;
  map.arg_end = l.arg_end;
  map.env_start = l.env_start;
  map.env_end = l.env_end;
  map.auxv = reinterpret_cast<__u64*>(auxv_addr);
  map.auxv_size = auxv_size;
  map.exe_fd = uint32_t(exe_fd);
  std::vector<uint8_t> bytes(sizeof map);
  std::memcpy(bytes.data(), &map, sizeof map);
  return bytes;
}

const store::Mapping* find_stack(const store::ProcessState& state) {
  for (const auto& m : state.mappings)
    if (m.flags & store::flag(store::MappingFlags::Stack)) return &m;
  return nullptr;
}

}  // namespace

Status restore_mm(RemoteCalls& rc, const store::RecordingReader& reader, CheckpointId k,
                  const store::ProcessState& state, RestoreReport& report) {
  std::vector<uint8_t> stack;
  uint64_t stack_start = 0;
  if (const store::Mapping* s = find_stack(state)) {
    stack.resize(s->end - s->start);
    stack_start = s->start;
    TRY_CTX(reader.read_memory(k, s->start, stack), "reading the recorded stack");
  }
  MmLayout layout = derive_mm_layout(state, stack_start, stack);
  if (layout.caveat) report.warnings.push_back(*layout.caveat);

  rc.reset_scratch();
  uint64_t auxv_addr = 0;
  uint32_t auxv_size = 0;
  if (!state.auxv.empty() && state.auxv.size() <= 512) {
    auxv_addr = TRY(rc.put(state.auxv));
    auxv_size = uint32_t(state.auxv.size());
  }

  // /proc/PID/exe: the recorded executable (or its packed copy), when we may change it.
  int64_t exe_fd = -1;
  if (!state.exe.empty()) {
    const std::string exe = store::packed_or_original(store::dir_of(reader), state.exe);
    uint64_t path = TRY(rc.put_string(exe));
    int64_t r = TRY(rc.raw(SYS_openat, uint64_t(AT_FDCWD), path, O_RDONLY | O_CLOEXEC));
    if (r >= 0) exe_fd = r;
    else report.warnings.push_back("/proc/PID/exe names the restorer: cannot open " + exe + ": " + std::strerror(int(-r)));
  }
  uint64_t map_addr = TRY(rc.put(encode_map(layout, auxv_addr, auxv_size, int32_t(exe_fd))));
  int64_t r = TRY(rc.raw(SYS_prctl, PR_SET_MM, PR_SET_MM_MAP, map_addr, sizeof(struct prctl_mm_map), 0));
  if (r < 0 && exe_fd >= 0) {
    report.warnings.push_back(std::string("/proc/PID/exe names the restorer: prctl(PR_SET_MM_MAP) with exe_fd: ") +
                              std::strerror(int(-r)));
    map_addr = TRY(rc.put(encode_map(layout, auxv_addr, auxv_size, -1)));
    r = TRY(rc.raw(SYS_prctl, PR_SET_MM, PR_SET_MM_MAP, map_addr, sizeof(struct prctl_mm_map), 0));
  }
  if (exe_fd >= 0) TRY(rc.call("close", SYS_close, uint64_t(exe_fd)));
  // /proc/PID/comm: execve sets it to the program's file name (15 bytes).
  if (!state.exe.empty()) {
    std::string comm = state.exe.substr(state.exe.rfind('/') + 1).substr(0, 15);
    uint64_t name = TRY(rc.put_string(comm));
    TRY(rc.call("prctl(PR_SET_NAME)", SYS_prctl, PR_SET_NAME, name));
  }
  if (r >= 0) return ok_status();

  std::string why = std::string("prctl(PR_SET_MM_MAP): ") + std::strerror(int(-r));
  int64_t a = TRY(rc.raw(SYS_prctl, PR_SET_MM, PR_SET_MM_START_BRK, layout.start_brk, 0, 0));
  int64_t b = a < 0 ? a : TRY(rc.raw(SYS_prctl, PR_SET_MM, PR_SET_MM_BRK, layout.brk, 0, 0));
  if (b < 0) {
    report.warnings.push_back("brk not restored (" + why + "; prctl(PR_SET_MM_BRK): " + std::strerror(int(-b)) +
                              "): the heap's pages are there, but brk(2) starts from the restorer's break");
  } else {
    report.warnings.push_back("/proc/PID/stat layout fields and auxv not restored (" + why + "); brk is");
  }
  return ok_status();
}

}  // namespace slsdbg::restore
