#include "process/remote_memory.h"

#include <fcntl.h>
#include <sys/uio.h>
#include <unistd.h>

#include <string>

#include "common/fd.h"

namespace slsdbg::process {

Status VmReader::read(uint64_t addr, void* out, uint64_t len) const {
  uint64_t done = 0;
  while (done < len) {
    iovec local{static_cast<char*>(out) + done, len - done};
    iovec remote{reinterpret_cast<void*>(addr + done), len - done};
    ssize_t n = process_vm_readv(pid_, &local, 1, &remote, 1, 0);
    if (n < 0) return Error::from_errno("process_vm_readv");
    if (n == 0) return Error::msg("process_vm_readv: short read");
    done += n;
  }
  return ok_status();
}

Result<std::vector<uint8_t>> VmReader::read_bytes(uint64_t addr, uint64_t len) const {
  std::vector<uint8_t> out(len);
  TRY(read(addr, out.data(), len));
  return out;
}

Status write_remote(pid_t pid, uint64_t addr, const void* data, uint64_t len) {
  std::string path = "/proc/" + std::to_string(pid) + "/mem";
  UniqueFd fd(open(path.c_str(), O_RDWR | O_CLOEXEC));
  if (!fd.valid()) return Error::from_errno("open " + path);
  ssize_t n = pwrite(fd.get(), data, len, static_cast<off_t>(addr));
  if (n < 0) return Error::from_errno("pwrite " + path);
  if (static_cast<uint64_t>(n) != len) return Error::msg("pwrite " + path + ": short write");
  return ok_status();
}

}  // namespace slsdbg::process
