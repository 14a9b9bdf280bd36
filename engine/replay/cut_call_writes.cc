#include "engine/replay/cut_call_writes.h"

#include <algorithm>
#include <cerrno>

#include "process/syscalls/model.h"

namespace slsdbg::replay {

namespace {

// The models of interrupted calls read nothing; a model that would gets an error.
class NoMemory : public process::RemoteReader {
 public:
  Status read(uint64_t, void*, uint64_t) const override { return Error::msg("no memory to read"); }
};

}  // namespace

std::vector<AddressRange> cut_call_writes(long nr, const std::array<uint64_t, 6>& args) {
  std::vector<AddressRange> out;
  const process::SyscallModel* model = process::find_syscall_model(nr);
  if (!model) return out;
  std::vector<process::OutputRegion> regions;
  (void)model->outputs(process::SyscallCall{nr, args, -EINTR}, NoMemory{}, regions);
  for (const process::OutputRegion& r : regions)
    if (r.addr + r.len > r.addr) out.push_back(AddressRange{r.addr, r.addr + r.len});
  return out;
}

void overlay_recorded(std::span<const AddressRange> ranges, const ImageReader& recorded, uint64_t addr,
                      std::span<uint8_t> out) {
  const uint64_t end = addr + out.size();
  for (const AddressRange& r : ranges) {
    const uint64_t lo = std::max(r.begin, addr), hi = std::min(r.end, end);
    if (lo >= hi) continue;
    std::vector<uint8_t> bytes(hi - lo);
    if (recorded(lo, bytes).ok()) std::copy(bytes.begin(), bytes.end(), out.begin() + (lo - addr));
  }
}

}  // namespace slsdbg::replay
