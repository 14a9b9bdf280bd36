// A position of the threaded timeline (threaded_timeline.h), and its text
// form: the name `monitor when` prints, bookmarks store and `monitor goto` /
// `replay --goto` take. Replaying a segment from its restore repeats the same
// arrivals in the same order, so the name reaches the same point in any
// later session.
//
//   K                         checkpoint K's start
//   K:end                     the end of segment K
//   K:t=T:pc=0xP:n=N          thread T's N-th arrival at P since checkpoint K
//   K:t=T:pc=0xP:n=N:watch=write/8/0xA
//                             thread T's N-th access to the 8 bytes at A by an
//                             instruction ending at P (kinds write, read, access)
//   K:t=T:resume=M            thread T's M-th resume since checkpoint K
//   K:t=T:event=E:entry       thread T at the system call of segment K's
//                             event E (0-based), about to be served (catch
//                             syscall's entry stop)
//   K:t=T:event=E             right after that call was served (its return)
// Each may end with ":steps=T1xS1,T2xS2": S1 single steps of thread T1, then
// S2 of T2 ("steps=S" alone: steps of the position's thread T).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/ids.h"
#include "common/result.h"
#include "engine/replay/thread_watch.h"

namespace slsdbg::replay {

struct ThreadedPosition {
  uint64_t k = 0;
  bool end = false;
  Tid tid{};
  uint64_t pc = 0;
  uint64_t n = 0;
  std::vector<Tid> steps;
  // Else the anchor is `tid`'s resume_m-th resume since the checkpoint
  // (resumes right after a breakpoint or step trap not counted): where a
  // reverse step from an arrival lands, stepping forward from there.
  uint64_t resume_m = 0;
  std::optional<WatchRange> watch;
  // Else the anchor is a system call event of `tid`: segment k's event
  // index `event`, at its entry or right after it was served.
  std::optional<uint64_t> event;
  bool entry = false;

  bool is_start() const { return !end && n == 0 && resume_m == 0 && !event; }
  bool same_anchor(const ThreadedPosition& o) const {
    return k == o.k && end == o.end && tid == o.tid && pc == o.pc && n == o.n && resume_m == o.resume_m &&
           watch == o.watch && event == o.event && entry == o.entry;
  }
  bool operator==(const ThreadedPosition&) const = default;

  std::string to_string() const;
  // Bad text -> an Error naming the part that is wrong.
  static Result<ThreadedPosition> parse(std::string_view text);
};

}  // namespace slsdbg::replay
