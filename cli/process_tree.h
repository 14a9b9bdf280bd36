// The processes of a recording (store/members.h) as `info` shows them: one
// row per member with what its own recording says of it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/result.h"

namespace slsdbg::cli {

struct ProcessRow {
  int pid = 0;
  std::string name;  // what -p takes: the pid, or PID.N for a reused pid (store/members.h)
  int parent_pid = 0;
  int depth = 0;             // 0: the root; children one more than their parent
  std::string program;       // argv joined; after an exec, the program it runs last first
  std::string origin;        // spawn | fork | exec
  std::string dir;
  size_t checkpoints = 0;
  std::optional<std::string> exit;  // "exited N" | "killed by SIG"; none: still running or cut
  std::string error;         // its recording could not be read
};

Result<std::vector<ProcessRow>> process_tree(const std::string& rec);
nlohmann::json process_tree_json(const std::vector<ProcessRow>& rows);

}  // namespace slsdbg::cli
