// The table of output models, built once from every family file.
#include <sys/syscall.h>

#include <array>
#include <cstdio>

#include "process/syscalls/model.h"

namespace slsdbg::process {

namespace {

constexpr long kMaxSyscall = 512;

struct Table {
  std::array<SyscallModel, kMaxSyscall> models{};
  Table() {
    std::vector<ModelEntry> all;
    register_file_io_models(all);
    register_fs_meta_models(all);
    register_memory_models(all);
    register_time_models(all);
    register_process_models(all);
    register_signal_models(all);
    register_poll_models(all);
    register_net_models(all);
    register_descriptor_models(all);
    for (const auto& e : all)
      if (e.nr >= 0 && e.nr < kMaxSyscall) models[e.nr] = e.model;
  }
};

const Table& table() {
  static const Table t;
  return t;
}

}  // namespace

SyscallClass no_outputs(const SyscallCall&, const RemoteReader&, std::vector<OutputRegion>&) {
  return SyscallClass::Modelled;
}

SyscallClass address_space(const SyscallCall&, const RemoteReader&, std::vector<OutputRegion>&) {
  return SyscallClass::AddressSpace;
}

const SyscallModel* find_syscall_model(long nr) {
  if (nr < 0 || nr >= kMaxSyscall) return nullptr;
  const SyscallModel& m = table().models[nr];
  return m.outputs ? &m : nullptr;
}

namespace {

struct NamedSyscall {
  long nr;
  const char* name;
};
// Generated from <asm/unistd_64.h> (recorder/record/CMakeLists.txt).
constexpr NamedSyscall kAllSyscalls[] = {
#include "syscall_names.inc"
};

}  // namespace

const char* syscall_name(long nr) {
  if (const SyscallModel* m = find_syscall_model(nr)) return m->name;
  for (const NamedSyscall& s : kAllSyscalls)
    if (s.nr == nr) return s.name;
  static thread_local char buf[32];
  std::snprintf(buf, sizeof buf, "syscall_%ld", nr);
  return buf;
}

}  // namespace slsdbg::process
