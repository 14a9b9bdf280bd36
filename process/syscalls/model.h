// Per-syscall output models: which tracee memory the kernel wrote for one
// completed system call, so the recorder can log exactly those bytes and
// replay can write them back instead of running the call.
//
// One file per syscall family (file_io.cc, fs_meta.cc, memory.cc, time.cc,
// process.cc, signals.cc, poll.cc, net.cc) fills the registry; a syscall with
// no entry is "unmodelled": logged, then a checkpoint is forced after it.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "common/result.h"

namespace slsdbg::process {

struct OutputRegion {
  uint64_t addr = 0;
  uint64_t len = 0;
};

// Reads tracee memory for models whose outputs depend on it (readv's iovec
// array, recvmsg's msghdr). Implemented over process_vm_readv.
class RemoteReader {
 public:
  virtual ~RemoteReader() = default;
  virtual Status read(uint64_t addr, void* out, uint64_t len) const = 0;
};

struct SyscallCall {
  long nr = -1;
  std::array<uint64_t, 6> args{};
  int64_t result = 0;  // raw return value (-errno on failure)
};

enum class SyscallClass : uint8_t {
  Modelled,      // outputs fully described by the model
  AddressSpace,  // runs for real at replay too; capture must learn the new map
  Unmodelled,    // logged, then a forced checkpoint (a model refused these args)
};

// Appends the regions written by `call` to `out`. Returns Unmodelled when the
// arguments take the call outside what the model understands (an unknown
// ioctl request, say).
using OutputModelFn = SyscallClass (*)(const SyscallCall& call, const RemoteReader& mem,
                                       std::vector<OutputRegion>& out);

struct SyscallModel {
  const char* name = nullptr;
  OutputModelFn outputs = nullptr;
};

// The model of syscall `nr`, or nullptr when none exists.
const SyscallModel* find_syscall_model(long nr);
const char* syscall_name(long nr);  // "syscall_NNN" when unknown

// Helpers the family files share.
inline bool succeeded(const SyscallCall& c) { return c.result >= 0; }
inline void add_region(std::vector<OutputRegion>& out, uint64_t addr, uint64_t len) {
  if (addr != 0 && len != 0) out.push_back({addr, len});
}
// On success the kernel wrote kSize bytes at args[kArg] (stat buffers, timespecs, ...).
template <int kArg, uint64_t kSize>
SyscallClass fixed_out(const SyscallCall& c, const RemoteReader&, std::vector<OutputRegion>& out) {
  if (succeeded(c)) add_region(out, c.args[kArg], kSize);
  return SyscallClass::Modelled;
}
// The kernel wrote `result` bytes at args[kArg] (getdents64, readlink, getcwd, getrandom).
template <int kArg>
SyscallClass result_bytes(const SyscallCall& c, const RemoteReader&, std::vector<OutputRegion>& out) {
  if (c.result > 0) add_region(out, c.args[kArg], c.result);
  return SyscallClass::Modelled;
}
SyscallClass no_outputs(const SyscallCall&, const RemoteReader&, std::vector<OutputRegion>&);
SyscallClass address_space(const SyscallCall&, const RemoteReader&, std::vector<OutputRegion>&);

// Registration, called once by the registry for every family file.
struct ModelEntry {
  long nr;
  SyscallModel model;
};
void register_file_io_models(std::vector<ModelEntry>& out);
void register_fs_meta_models(std::vector<ModelEntry>& out);
void register_memory_models(std::vector<ModelEntry>& out);
void register_time_models(std::vector<ModelEntry>& out);
void register_process_models(std::vector<ModelEntry>& out);
void register_signal_models(std::vector<ModelEntry>& out);
void register_poll_models(std::vector<ModelEntry>& out);
void register_net_models(std::vector<ModelEntry>& out);
void register_descriptor_models(std::vector<ModelEntry>& out);

}  // namespace slsdbg::process
