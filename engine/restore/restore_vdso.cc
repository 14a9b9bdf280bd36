// [vvar]/[vvar_vclock]/[vdso]: when this kernel's vDSO has the recorded layout,
// arch_prctl(ARCH_MAP_VDSO_64) maps the kernel's own pages at the recorded
// address (so /proc/PID/maps names them, vvar data is live, and the kernel
// knows where the vDSO is), and the recorded vDSO pages (patched by the
// recorder) are written over its text through /proc/PID/mem, which
// copies-on-write as for a debugger's breakpoint. Otherwise the plan's
// fallback stands: plain anonymous memory with the recorded pages.
#include <asm/prctl.h>
#include <sys/syscall.h>

#include <vector>

#include "engine/restore/memory_fill.h"
#include "engine/restore/restore_steps.h"
#include "process/proc_maps.h"

namespace slsdbg::restore {

namespace {

bool is_vdso_part(const store::Mapping& m) {
  return m.path == "[vvar]" || m.path == "[vvar_vclock]" || m.path == "[vdso]";
}

}  // namespace

Status map_kernel_vdso(RemoteCalls& rc, const store::RecordingReader& reader, CheckpointId k, RestorePlan& plan) {
  // The recorded group: consecutive vvar..vdso steps.
  std::vector<size_t> group;
  for (size_t i = 0; i < plan.mappings.size(); i++) {
    const store::Mapping& m = plan.mappings[i].mapping;
    if (!is_vdso_part(m)) continue;
    if (!group.empty() && plan.mappings[group.back()].mapping.end != m.start) return ok_status();
    group.push_back(i);
  }
  if (group.empty() || plan.mappings[group.back()].mapping.path != "[vdso]") return ok_status();
  uint64_t start = plan.mappings[group.front()].mapping.start;
  int64_t r = TRY(rc.raw(SYS_arch_prctl, ARCH_MAP_VDSO_64, start));
  if (r < 0) return ok_status();  // no CONFIG_CHECKPOINT_RESTORE, or refused: fallback

  // Did every part land where it was recorded, with the recorded size?
  std::vector<store::Mapping> live = TRY(process::read_maps(rc.task().tgid()));
  std::vector<store::Mapping> parts;
  for (const auto& m : live)
    if (is_vdso_part(m)) parts.push_back(m);
  bool same = parts.size() == group.size();
  for (size_t i = 0; same && i < group.size(); i++) {
    const store::Mapping& want = plan.mappings[group[i]].mapping;
    same = parts[i].start == want.start && parts[i].end == want.end && parts[i].path == want.path;
  }
  if (!same) {
    for (const auto& m : parts) TRY(rc.call("munmap", SYS_munmap, m.start, m.end - m.start));
    return ok_status();
  }

  // The recorded vDSO text over the kernel's (zero pages: not recorded, keep the kernel's).
  const store::Mapping& vdso = plan.mappings[group.back()].mapping;
  std::vector<uint8_t> text(vdso.end - vdso.start);
  TRY(reader.read_memory(k, vdso.start, text));
  for (uint64_t off = 0; off < text.size(); off += kPageSize) {
    if (is_zero_page(text.data() + off)) continue;
    TRY_CTX(rc.task().write_memory(RemoteAddr(vdso.start + off), std::span<const uint8_t>(text.data() + off, kPageSize)),
            "writing the recorded vDSO");
  }
  std::vector<MappingStep> rest;
  for (size_t i = 0; i < plan.mappings.size(); i++)
    if (!is_vdso_part(plan.mappings[i].mapping)) rest.push_back(plan.mappings[i]);
  plan.mappings = std::move(rest);
  return ok_status();
}

}  // namespace slsdbg::restore
