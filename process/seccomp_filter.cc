#include "process/seccomp_filter.h"

#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "process/inject.h"
#include "process/syscallbuf_stub.h"

namespace slsdbg::process {

Status install_record_filter(bool syscall_buffer) {
  constexpr uint32_t kPageLo = static_cast<uint32_t>(process::kInjectPageAddr & 0xffffffffu);
  constexpr uint32_t kPageHi = static_cast<uint32_t>(process::kInjectPageAddr >> 32);
  // The ip seccomp sees is the address after the 2-byte `syscall`, so the
  // allowed range is (page, page + 4096].
  constexpr uint32_t kEnd = kPageLo + 4096;
  static_assert(kPageLo + 4096 > kPageLo, "injection page must not straddle 4 GiB");
  // The syscall buffer's fast `syscall` (syscallbuf_stub.h): allowed only
  // while recording with the buffer on; replay traps it like any other.
  const uint32_t fast_ip = syscall_buffer ? static_cast<uint32_t>(process::sysbuf_stub_layout().fast + 2) : 0;
  struct sock_filter filter[] = {
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, instruction_pointer) + 4),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, kPageHi, 0, 5),
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, instruction_pointer)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, fast_ip, 2, 0),
      BPF_JUMP(BPF_JMP | BPF_JGT | BPF_K, kPageLo, 0, 2),
      BPF_JUMP(BPF_JMP | BPF_JGT | BPF_K, kEnd, 1, 0),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRACE),
  };
  struct sock_fprog prog = {static_cast<unsigned short>(sizeof filter / sizeof filter[0]), filter};
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return Error::from_errno("prctl(PR_SET_NO_NEW_PRIVS)");
  if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) != 0) return Error::from_errno("seccomp");
  return ok_status();
}

}  // namespace slsdbg::process
