// Address-space syscalls: they run for real at replay as well, so they have no
// logged outputs; the recorder tells checkpoint capture the map changed.
#include <sys/syscall.h>

#include "process/syscalls/model.h"

namespace slsdbg::process {

namespace {

SyscallClass mincore_model(const SyscallCall& c, const RemoteReader&, std::vector<OutputRegion>& out) {
  if (succeeded(c)) add_region(out, c.args[2], (c.args[1] + 4095) / 4096);
  return SyscallClass::Modelled;
}

}  // namespace

void register_memory_models(std::vector<ModelEntry>& out) {
  out.insert(out.end(), {
      {SYS_mmap, {"mmap", address_space}},
      {SYS_munmap, {"munmap", address_space}},
      {SYS_mremap, {"mremap", address_space}},
      {SYS_mprotect, {"mprotect", address_space}},
      {SYS_brk, {"brk", address_space}},
      {SYS_madvise, {"madvise", address_space}},
      {SYS_mincore, {"mincore", mincore_model}},
      {SYS_mlock, {"mlock", no_outputs}},
      {SYS_munlock, {"munlock", no_outputs}},
      {SYS_msync, {"msync", no_outputs}},
  });
}

}  // namespace slsdbg::process
