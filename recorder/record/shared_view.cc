#include "recorder/record/shared_view.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <utility>

#include "process/inject.h"
#include "process/proc_maps.h"
#include "process/remote_memory.h"

namespace slsdbg::recorder {

using process::VmReader;

namespace {

constexpr uint64_t kPage = 4096;

bool starts_with(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

// Reads [addr, addr + len) of `pid` into `out`; a page that cannot be read
// (a file mapping past its end) keeps what `out` had.
void read_pages(pid_t pid, uint64_t addr, uint64_t len, uint8_t* out) {
  VmReader mem(pid);
  if (mem.read(addr, out, len).ok()) return;
  for (uint64_t off = 0; off < len; off += kPage) (void)mem.read(addr + off, out + off, kPage);
}

}  // namespace

bool shared_with_others(const store::Mapping& m) {
  if (!(m.flags & store::flag(store::MappingFlags::Shared))) return false;
  if (m.start >= process::kStagingAddr && m.end <= process::kStagingAddr + process::kStagingSize) return false;
  if (m.prot & PROT_WRITE) return true;
  return (m.prot & PROT_READ) && (starts_with(m.path, "/dev/shm/") || starts_with(m.path, "/memfd:") ||
                                  starts_with(m.path, "/SYSV") || starts_with(m.path, "/dev/zero"));
}

Status SharedView::refresh(bool new_read_as_zero) {
  std::vector<store::Mapping> maps = TRY(process::read_maps(pid_));
  std::vector<Range> now;
  for (const store::Mapping& m : maps) {
    if (!shared_with_others(m)) continue;
    auto old = std::find_if(ranges_.begin(), ranges_.end(),
                            [&](const Range& r) { return r.start == m.start && r.end == m.end; });
    if (old != ranges_.end()) {
      now.push_back(std::move(*old));
      continue;
    }
    Range r;
    r.start = m.start;
    r.end = m.end;
    if (new_read_as_zero) {
      r.copy.assign(r.end - r.start, 0);
      r.copy_valid = true;
    }
    for (uint64_t p = r.start; p < r.end; p += kPage) to_store_.insert(p);
    now.push_back(std::move(r));
  }
  ranges_ = std::move(now);
  return ok_status();
}

uint64_t SharedView::bytes() const {
  uint64_t n = 0;
  for (const Range& r : ranges_) n += r.end - r.start;
  return n;
}

Status SharedView::snapshot() {
  for (Range& r : ranges_) {
    r.copy.resize(r.end - r.start);
    read_pages(pid_, r.start, r.end - r.start, r.copy.data());
    r.copy_valid = true;
  }
  return ok_status();
}

Result<std::vector<store::MemoryWrite>> SharedView::changes() {
  std::vector<store::MemoryWrite> out;
  std::vector<uint8_t> now;
  for (Range& r : ranges_) {
    if (!r.copy_valid) continue;
    now = r.copy;  // an unreadable page counts as unchanged
    read_pages(pid_, r.start, r.end - r.start, now.data());
    for (uint64_t off = 0; off < now.size(); off += kPage) {
      const uint8_t* a = r.copy.data() + off;
      const uint8_t* b = now.data() + off;
      if (std::memcmp(a, b, kPage) == 0) continue;
      size_t first = 0, last = kPage;
      while (a[first] == b[first]) first++;
      while (a[last - 1] == b[last - 1]) last--;
      store::MemoryWrite w;
      w.addr = r.start + off + first;
      w.bytes.assign(b + first, b + last);
      out.push_back(std::move(w));
      to_store_.insert(r.start + off);
    }
    r.copy_valid = false;
  }
  return out;
}

const SharedView::Range* SharedView::range_at(uint64_t addr) const {
  for (const Range& r : ranges_)
    if (addr >= r.start && addr < r.end) return &r;
  return nullptr;
}

Status SharedView::amend(CapturedCheckpoint& c, bool from_copy) {
  std::vector<store::DirtyPage>& dirty = c.input.dirty;
  // The shared pages this checkpoint gets from here: those others wrote,
  // and without the turn every shared page the capture took.
  std::set<uint64_t> mine;
  for (uint64_t p : to_store_)
    if (range_at(p)) mine.insert(p);
  to_store_.clear();
  if (from_copy)
    for (const store::DirtyPage& d : dirty)
      if (range_at(d.vaddr)) mine.insert(d.vaddr);
  if (mine.empty()) return ok_status();
  if (from_copy) std::erase_if(dirty, [&](const store::DirtyPage& d) { return mine.count(d.vaddr) != 0; });
  else
    for (const store::DirtyPage& d : dirty) mine.erase(d.vaddr);  // read just now by the capture
  // Owned with the capture's pages: the store reads them after the member runs on.
  auto extra = std::make_shared<std::vector<uint8_t>>(mine.size() * kPage);
  size_t i = 0;
  for (uint64_t p : mine) {
    uint8_t* dst = extra->data() + i++ * kPage;
    const Range* r = range_at(p);
    if (from_copy && r->copy_valid)
      std::memcpy(dst, r->copy.data() + (p - r->start), kPage);
    else
      read_pages(pid_, p, kPage, dst);
    dirty.push_back(store::DirtyPage{p, dst});
  }
  std::sort(dirty.begin(), dirty.end(), [](const auto& a, const auto& b) { return a.vaddr < b.vaddr; });
  c.pages = std::make_shared<std::pair<std::shared_ptr<const void>, std::shared_ptr<std::vector<uint8_t>>>>(
      std::move(c.pages), std::move(extra));
  return ok_status();
}

}  // namespace slsdbg::recorder
