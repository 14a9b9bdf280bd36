#include "engine/replay/write_filter.h"

#include <elf.h>
#include <sys/auxv.h>
#include <sys/syscall.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <span>
#include <string>

#include "common/log.h"

namespace slsdbg::replay {

namespace {

bool changes_address_space(int64_t nr) {
  switch (nr) {
    case SYS_mmap:
    case SYS_munmap:
    case SYS_mremap:
    case SYS_brk:
    case SYS_madvise:
    case SYS_shmat:
    case SYS_shmdt:
    case SYS_execve:
    case SYS_execveat:
    case SYS_remap_file_pages: return true;
    default: return false;
  }
}

template <typename T>
std::optional<T> load(const store::RecordingReader& reader, CheckpointId k, uint64_t addr) {
  T v{};
  if (!reader.read_memory(k, addr, std::span(reinterpret_cast<uint8_t*>(&v), sizeof v)).ok()) return std::nullopt;
  return v;
}

// The dynamic loader's r_debug and r_brk as of checkpoint k: the program's
// PT_DYNAMIC (found through AT_PHDR) holds DT_DEBUG = &r_debug once ld.so ran.
std::optional<std::pair<uint64_t, uint64_t>> loader_hook(const store::RecordingReader& reader, CheckpointId k) {
  Result<store::ProcessState> st = reader.process_state(k);
  if (!st.ok()) return std::nullopt;
  uint64_t phdr = 0, phnum = 0;
  for (size_t i = 0; i + 16 <= st->auxv.size(); i += 16) {
    uint64_t key = 0, value = 0;
    std::memcpy(&key, st->auxv.data() + i, 8);
    std::memcpy(&value, st->auxv.data() + i + 8, 8);
    if (key == AT_PHDR) phdr = value;
    if (key == AT_PHNUM) phnum = value;
  }
  if (!phdr || !phnum || phnum > 64) return std::nullopt;
  std::optional<uint64_t> bias, dynamic;
  for (uint64_t i = 0; i < phnum; i++) {
    auto ph = load<Elf64_Phdr>(reader, k, phdr + i * sizeof(Elf64_Phdr));
    if (!ph) return std::nullopt;
    if (ph->p_type == PT_PHDR) bias = phdr - ph->p_vaddr;
    if (ph->p_type == PT_DYNAMIC) dynamic = ph->p_vaddr;
  }
  if (!bias || !dynamic) return std::nullopt;
  for (uint64_t at = *bias + *dynamic, n = 0; n < 512; n++, at += sizeof(Elf64_Dyn)) {
    auto d = load<Elf64_Dyn>(reader, k, at);
    if (!d || d->d_tag == DT_NULL) return std::nullopt;
    if (d->d_tag != DT_DEBUG || d->d_un.d_ptr == 0) continue;
    auto r_brk = load<uint64_t>(reader, k, d->d_un.d_ptr + 16);  // r_version, r_map, then r_brk
    if (!r_brk || *r_brk == 0) return std::nullopt;
    return std::pair<uint64_t, uint64_t>{d->d_un.d_ptr, *r_brk};
  }
  return std::nullopt;
}

}  // namespace

std::optional<WriteFilter> WriteFilter::make(const store::RecordingReader& reader,
                                             std::vector<std::pair<uint64_t, uint64_t>> ranges,
                                             const std::vector<uint64_t>& breakpoints, bool reads) {
  if (reads || ranges.empty()) return std::nullopt;
  std::optional<uint64_t> hook_page;
  if (!breakpoints.empty()) {
    const auto cps = reader.checkpoints();
    if (cps.empty()) return std::nullopt;
    auto hook = loader_hook(reader, cps.back().id);
    if (!hook || breakpoints.size() != 1 || breakpoints[0] != hook->second) return std::nullopt;
    hook_page = page_floor(hook->first);
  }
  // SLSDBG_WATCH_SKIP=off: replay every segment (measurements, bench/travel/last_write.py).
  if (const char* mode = std::getenv("SLSDBG_WATCH_SKIP"); mode && std::string(mode) == "off") return std::nullopt;
  if (reader.meta().tracker != "uffd-wp-async") {
    SLSDBG_DEBUG("timeline", "no segment skipping: the recording's dirty pages come from '%s', not uffd-wp-async",
                 reader.meta().tracker.c_str());
    return std::nullopt;
  }
  WriteFilter f(reader, std::move(ranges));
  f.loader_hook_page_ = hook_page;
  return f;
}

bool WriteFilter::page_dirty(uint64_t checkpoint, uint64_t page) const {
  Result<std::vector<uint64_t>> pages = reader_->dirty_pages(CheckpointId(checkpoint));
  return !pages.ok() || std::binary_search(pages->begin(), pages->end(), page);
}

WriteFilter::WriteFilter(const store::RecordingReader& reader, std::vector<std::pair<uint64_t, uint64_t>> ranges)
    : reader_(&reader), ranges_(std::move(ranges)), checkpoints_(reader.checkpoints()) {}

bool WriteFilter::overlaps(uint64_t addr, uint64_t len) const {
  for (const auto& [a, n] : ranges_)
    if (addr < a + n && a < addr + len) return true;
  return false;
}

WriteFilter::Verdict WriteFilter::judge(uint64_t k) const {
  const Verdict replay{true, true};
  if (k + 1 >= checkpoints_.size()) return replay;
  const std::string& next = checkpoints_[k + 1].reason;
  if (next == "exec" || next == "forced" || next == "patch") return replay;  // crossed by restore
  Result<std::vector<uint64_t>> pages = reader_->dirty_pages(CheckpointId(k + 1));
  if (!pages.ok()) return replay;
  Verdict v{false, false};
  for (const auto& [a, n] : ranges_) {
    for (uint64_t p = a / kPageSize * kPageSize; p < a + n; p += kPageSize)
      if (std::binary_search(pages->begin(), pages->end(), p)) v.writes = true;
  }
  if (loader_hook_page_ && (std::binary_search(pages->begin(), pages->end(), *loader_hook_page_) ||
                            page_dirty(k, *loader_hook_page_)))
    v.writes = true;
  if (checkpoints_[k].segment_events == 0) return v;
  Result<std::vector<store::Event>> events = reader_->segment_events(SegmentId(k));
  if (!events.ok()) return replay;
  for (const store::Event& ev : *events) {
    switch (ev.kind) {
      case store::EventKind::Syscall:
        if (changes_address_space(ev.syscall_no)) v.writes = true;
        for (const store::MemoryWrite& w : ev.writes)
          if (overlaps(w.addr, w.bytes.size())) v.writes = true;
        break;
      case store::EventKind::Signal:
        v.signal = true;
        if (loader_hook_page_) v.writes = true;  // a handler between the state store and the hook's call
        break;
      case store::EventKind::ForcedCheckpoint: v.writes = true; break;
      case store::EventKind::Rdtsc:
      case store::EventKind::ThreadSwitch:
      case store::EventKind::Exit: break;
    }
  }
  return v;
}

bool WriteFilter::must_replay(uint64_t k, Use use) {
  auto it = cache_.find(k);
  if (it == cache_.end()) it = cache_.emplace(k, judge(k)).first;
  return it->second.writes || (use == Use::Forward && it->second.signal);
}

}  // namespace slsdbg::replay
