#include "recorder/record/stop_census.h"

#include <algorithm>
#include <vector>

#include "process/syscalls/model.h"

namespace slsdbg::recorder {

using process::syscall_name;

std::string StopCensus::summary(size_t top) const {
  std::vector<int> nrs;
  for (int nr = 0; nr < kMaxNr; nr++)
    if (counts_[static_cast<size_t>(nr)] != 0) nrs.push_back(nr);
  std::sort(nrs.begin(), nrs.end(), [&](int a, int b) {
    return counts_[static_cast<size_t>(a)] != counts_[static_cast<size_t>(b)]
               ? counts_[static_cast<size_t>(a)] > counts_[static_cast<size_t>(b)]
               : a < b;
  });
  std::string out;
  for (size_t i = 0; i < nrs.size() && i < top; i++) {
    if (!out.empty()) out += ", ";
    out += syscall_name(nrs[i]);
    out += ' ';
    out += std::to_string(counts_[static_cast<size_t>(nrs[i])]);
  }
  return out;
}

}  // namespace slsdbg::recorder
