// Bookmarks for both replay targets: what one may be called: not a checkpoint
// number or a moment, so `monitor goto WHERE` can tell them apart.
#pragma once

#include <string>
#include <string_view>

#include "common/result.h"
#include "store/recording.h"

namespace slsdbg::gdbserver {

inline bool all_digits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  return true;
}

inline Status check_bookmark_name(std::string_view name) {
  if (name.empty()) return Error::msg("bookmark needs a name");
  if (all_digits(name) || name.find(':') != std::string_view::npos || name.find(' ') != std::string_view::npos)
    return Error::msg("bookmark name '" + std::string(name) + "': use letters, no spaces, not only digits, no ':'");
  return ok_status();
}

// The moment text bookmarked as `name`, or an error naming it.
inline Result<std::string> bookmarked_moment(const store::RecordingReader& reader, std::string_view name) {
  auto marks = TRY(reader.bookmarks());
  for (auto& [mark, moment] : marks)
    if (mark == name) return moment;
  return Error::msg("no checkpoint, moment or bookmark named '" + std::string(name) + "'");
}

}  // namespace slsdbg::gdbserver
