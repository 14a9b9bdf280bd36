// Reading tracee memory from the recorder with process_vm_readv.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <vector>

#include "process/syscalls/model.h"

namespace slsdbg::process {

class VmReader final : public RemoteReader {
 public:
  explicit VmReader(pid_t pid) : pid_(pid) {}
  Status read(uint64_t addr, void* out, uint64_t len) const override;
  Result<std::vector<uint8_t>> read_bytes(uint64_t addr, uint64_t len) const;

 private:
  pid_t pid_;
};

// Writes through /proc/PID/mem, which also works on read-only (r-x) pages.
Status write_remote(pid_t pid, uint64_t addr, const void* data, uint64_t len);

}  // namespace slsdbg::process
