// A recording of a process tree (format 6). REC itself is the recording of
// the process `slsdbg record` started (the root member); each child process
// of the tree, grandchildren included, is a complete recording of its own
// under REC/members/PID/ (catalog, pages, events), whose meta names its pid,
// its parent's pid and how its history starts (RecordingMeta::origin):
//
//   REC/                 root member (pid R)
//     members/C1/        forked by R
//     members/C2/        forked by C1 (flat: the tree is in the meta)
//     members/C1.2/      a later process that got pid C1 again (the kernel
//                        reuses pids): the second of that pid, and so on
//
// Every member's log holds all of its own inputs (pipe reads, wait4 status,
// SIGCHLD), so each replays on its own. Older recordings have no members/:
// a tree of one.
#pragma once

#include <string>
#include <vector>

#include "common/result.h"

namespace slsdbg::store {

struct Member {
  int pid = 0;         // 0: a recording older than format 6 (the root)
  std::string name;    // its directory's name: "PID", or "PID.N" for the N-th process with that pid ("" for the root)
  int parent_pid = 0;
  std::string dir;     // the member's recording directory
  std::string program; // its program path (after its last exec: see its log)
  std::string origin;  // "spawn" | "fork" | "vfork" | "exec" ("" before format 6; docs/formats/catalog.md)
};

std::string members_dir(const std::string& rec);
std::string member_dir(const std::string& rec, int pid);
// Where the next process with pid `pid` is recorded: member_dir, or
// "PID.N" after it when earlier processes had that pid.
std::string unused_member_dir(const std::string& rec, int pid);
// A member name as `info` shows it: digits, or digits "." digits.
bool is_member_name(const std::string& name);

// The root first, then each member after its parent (depth first, by pid).
// A member directory that is not a readable recording is skipped.
Result<std::vector<Member>> list_members(const std::string& rec);

// The directory of the member with pid `pid` (the root's own pid names REC).
// Unknown: a one-line error naming the pid and the pids there are.
Result<std::string> member_recording(const std::string& rec, int pid);
// The same by name: "PID" is the first process with that pid, "PID.N" the
// N-th (member_dir, unused_member_dir).
Result<std::string> member_recording(const std::string& rec, const std::string& name);

}  // namespace slsdbg::store
