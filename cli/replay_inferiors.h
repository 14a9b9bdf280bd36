// `slsdbg replay REC --inferiors`: every process of a recorded tree as an
// inferior of one GDB (GDB 13's multi-target: each inferior has its own
// remote connection). The root is served by this process as usual; each
// other member by a `slsdbg replay REC -p PID --server unix:SOCK` child of
// its own, so members never share a tracer thread. GDB's setup then adds an
// inferior per member (`add-inferior -no-connection`, `file`, `target
// remote`) and switches back to inferior 1. With a group cut (--cut N) each
// inferior starts at its checkpoint in that cut, and only the members named
// in it are inferiors.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

#include "common/result.h"

namespace slsdbg::cli {

class InferiorServers {
 public:
  // `rec`: the root recording. `cut`: a group cut's id (store/group_cuts.h).
  // Sets `root_start` to the root's checkpoint in the cut.
  static Result<InferiorServers> start(const std::string& rec, std::optional<uint64_t> cut,
                                       std::optional<std::string>& root_start);
  InferiorServers(InferiorServers&& o) noexcept;
  InferiorServers& operator=(InferiorServers&&) = delete;
  ~InferiorServers();  // waits for the servers (GDB's detach ends them), then ends any left

  // GDB commands run after the root's `target remote`.
  std::string gdb_setup() const;
  size_t size() const { return servers_.size(); }

 private:
  InferiorServers() = default;
  struct Server {
    int pid = 0;
    pid_t child = -1;
    std::string sock;
    std::string program;
  };
  std::string dir_;
  std::vector<Server> servers_;
};

}  // namespace slsdbg::cli
