#include "recorder/capture/staging_copier.h"

#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "process/inject.h"
#include "process/remote_fd.h"

namespace slsdbg::recorder {

using process::kStagingAddr;
using process::kStagingDataAddr;
using process::kStagingMaxPages;
using process::kStagingSize;

StagingCopier::~StagingCopier() {
  if (local_) munmap(local_, kStagingSize);
}

Status StagingCopier::init(process::Task& leader) {
  TRY(process::install_injection_page(leader));
  static const char kName[] = "slsdbg-staging";
  const uint64_t name_addr = process::kInjectScratchAddr + 3072;
  TRY(leader.write_memory(RemoteAddr(name_addr), std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(kName), sizeof kName)));
  int64_t fd = TRY(process::inject_syscall(leader, SYS_memfd_create, {name_addr, MFD_CLOEXEC, 0, 0, 0, 0}));
  if (fd < 0) return Error::from_errno("memfd_create() in the tracee", static_cast<int>(-fd));
  auto close_remote = [&]() { return process::inject_syscall(leader, SYS_close, {static_cast<uint64_t>(fd), 0, 0, 0, 0, 0}); };
  int64_t r = TRY(process::inject_syscall(leader, SYS_ftruncate, {static_cast<uint64_t>(fd), kStagingSize, 0, 0, 0, 0}));
  if (r < 0) {
    (void)close_remote();
    return Error::from_errno("ftruncate() of the staging memfd in the tracee", static_cast<int>(-r));
  }
  r = TRY(process::inject_syscall(leader, SYS_mmap, {kStagingAddr, kStagingSize, PROT_READ | PROT_WRITE,
                                                     MAP_SHARED | MAP_FIXED_NOREPLACE, static_cast<uint64_t>(fd), 0}));
  if (r != static_cast<int64_t>(kStagingAddr)) {
    (void)close_remote();
    return Error::from_errno("mmap() of the staging area in the tracee", r < 0 ? static_cast<int>(-r) : EEXIST);
  }
  Result<UniqueFd> copied = process::copy_remote_fd(leader.tgid(), static_cast<int>(fd));
  TRY(close_remote());
  UniqueFd local = TRY_CTX(std::move(copied), "staging memfd");
  void* m = mmap(nullptr, kStagingSize, PROT_READ | PROT_WRITE, MAP_SHARED, local.get(), 0);
  if (m == MAP_FAILED) return Error::from_errno("mmap(staging memfd)");
  local_ = static_cast<uint8_t*>(m);
  return ok_status();
}

Result<size_t> StagingCopier::copy(process::Task& leader, const std::vector<uint64_t>& pages) {
  if (!local_) return Error::msg("staging copier not initialised");
  const size_t n = std::min<size_t>(pages.size(), kStagingMaxPages);
  if (n == 0) return size_t{0};
  uint64_t* header = reinterpret_cast<uint64_t*>(local_);
  header[0] = n;
  std::memcpy(header + 1, pages.data(), n * sizeof(uint64_t));
  TRY_CTX(process::run_injected_stub(leader, process::page_copy_stub(), [](user_regs_struct&) {}),
          "in-tracee page copy");
  return n;
}

const uint8_t* StagingCopier::data(size_t i) const { return local_ + (kStagingDataAddr - kStagingAddr) + i * kPageSize; }

}  // namespace slsdbg::recorder
