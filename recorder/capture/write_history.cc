#include "recorder/capture/write_history.h"

namespace slsdbg::recorder {

void WriteHistory::push(std::vector<uint64_t> written) {
  sets_.push_front(std::move(written));
  if (sets_.size() > kDepth) sets_.pop_back();
}

const std::vector<uint64_t>& WriteHistory::newest() const {
  static const std::vector<uint64_t> kNone;
  return sets_.empty() ? kNone : sets_.front();
}

std::vector<uint64_t> WriteHistory::also_written(const std::vector<uint64_t>& pages) const {
  // One merge walk per set: linear in the sizes, no allocation per page.
  std::vector<bool> hit(pages.size(), false);
  for (const std::vector<uint64_t>& s : sets_) {
    for (size_t i = 0, j = 0; i < pages.size() && j < s.size();) {
      if (pages[i] < s[j]) i++;
      else if (s[j] < pages[i]) j++;
      else hit[i++] = true, j++;
    }
  }
  std::vector<uint64_t> out;
  for (size_t i = 0; i < pages.size(); i++)
    if (hit[i]) out.push_back(pages[i]);
  return out;
}

}  // namespace slsdbg::recorder
