// REC/group_cuts: the consistent cuts of a recorded process tree
// (docs/formats/members.md "Group cuts"). One line per cut, appended by the
// recorder as each cut completes:
//
//   CUT PID:CHECKPOINT PID:CHECKPOINT ...
//
// CUT counts from 1; each pair names a member (its pid, REC/members/PID or
// the root) and the checkpoint of its own recording that belongs to the cut.
// Every member named was stopped at that checkpoint at one common moment, so
// nothing one of them received before its checkpoint was sent after
// another's. A recording of one process, or older than this file, has none.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/result.h"

namespace slsdbg::store {

struct CutMember {
  int pid = 0;
  uint64_t checkpoint = 0;
};

struct GroupCut {
  uint64_t id = 0;
  std::vector<CutMember> members;  // by pid
};

// The file's name in the root recording; written by the tree's members,
// possibly before the root's own store exists (recording_writer.cc allows it).
inline constexpr const char* kGroupCutsFile = "group_cuts";
std::string group_cuts_path(const std::string& rec);

// One line of the file (without the newline).
std::string format_group_cut(const GroupCut& cut);
Result<GroupCut> parse_group_cut(const std::string& line);

// Appends `cut` as one write (O_APPEND), so a killed recorder leaves whole
// lines behind.
Status append_group_cut(const std::string& rec, const GroupCut& cut);

// Every cut in the file; none when there is no file. A torn last line (the
// recorder killed mid-write) is skipped; any other bad line is an error
// naming its number.
Result<std::vector<GroupCut>> read_group_cuts(const std::string& rec);

}  // namespace slsdbg::store
