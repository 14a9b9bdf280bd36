#include "recorder/capture/address_space_diff.h"

#include <algorithm>

#include "process/inject.h"
#include "process/proc_maps.h"

namespace slsdbg::recorder {

namespace {

using store::Mapping;

bool same_backing(const Mapping& a, const Mapping& b, uint64_t at) {
  constexpr uint32_t kIdentity = store::flag(store::MappingFlags::Shared) | store::flag(store::MappingFlags::Anonymous);
  if ((a.flags & kIdentity) != (b.flags & kIdentity) || a.dev != b.dev || a.inode != b.inode || a.path != b.path) return false;
  if (a.flags & store::flag(store::MappingFlags::Anonymous)) return true;
  return a.file_offset + (at - a.start) == b.file_offset + (at - b.start);
}

// Parts of `from` mappings not covered by an identical-backing mapping of `other`.
std::vector<PageRange> uncovered(const std::vector<Mapping>& from, const std::vector<Mapping>& other) {
  std::vector<PageRange> out;
  auto emit = [&](uint64_t s, uint64_t e) {
    if (s >= e) return;
    if (!out.empty() && out.back().end == s) {
      out.back().end = e;
    } else {
      out.push_back({s, e});
    }
  };
  size_t j = 0;
  for (const Mapping& m : from) {
    if (!capturable(m)) continue;
    while (j < other.size() && other[j].end <= m.start) ++j;
    uint64_t cur = m.start;
    for (size_t k = j; k < other.size() && other[k].start < m.end; ++k) {
      const Mapping& o = other[k];
      uint64_t s = std::max(cur, o.start), e = std::min(m.end, o.end);
      if (s >= e) continue;
      if (capturable(o) && same_backing(m, o, s)) {
        emit(cur, s);
        cur = e;
      }
    }
    emit(cur, m.end);
  }
  return out;
}

}  // namespace

bool capturable(const Mapping& m) {
  if (process::is_special_mapping(m) && m.path != "[vdso]") return false;
  if (m.start < process::kInjectPageAddr + process::kInjectAreaSize && process::kInjectPageAddr < m.end) return false;
  if (m.start < process::kStagingAddr + process::kStagingSize && process::kStagingAddr < m.end) return false;
  return true;
}

MapDiff diff_maps(const std::vector<Mapping>& before, const std::vector<Mapping>& after) {
  return MapDiff{uncovered(after, before), uncovered(before, after)};
}

}  // namespace slsdbg::recorder
