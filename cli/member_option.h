// -p PID: the process of a recording a command works on (store/members.h);
// the process `record` started when absent, so single-process commands
// behave as before.
#pragma once

#include <string>

#include "cli/options.h"
#include "common/result.h"

namespace slsdbg::cli {


class MemberOption {
 public:
  // The MemberOption must stay where it is until the Options have parsed.
  void add(Options& opts);
  // REC (a path, `latest` or a name) resolved, then PID's recording in it.
  Result<std::string> resolve(const std::string& rec) const;
  bool given() const { return given_; }

 private:
  std::string pid_;
  bool given_ = false;  // set while parsing (the Options may be gone by resolve())
};

}  // namespace slsdbg::cli
