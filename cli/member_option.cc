#include "cli/member_option.h"

#include "cli/recording_dir.h"
#include "store/members.h"

namespace slsdbg::cli {

void MemberOption::add(Options& opts) {
  opts.text("-p,--pid", pid_, "a process id")->each([this](const std::string&) { given_ = true; });
}

Result<std::string> MemberOption::resolve(const std::string& rec) const {
  std::string dir = TRY(recorder::resolve_recording(rec));
  if (!given_) return dir;
  if (pid_.empty() || pid_.size() > 9 || pid_.find_first_not_of("0123456789") != std::string::npos)
    return Error::bad_input("-p " + pid_ + ": not a process id");
  return store::member_recording(dir, std::stoi(pid_));
}

}  // namespace slsdbg::cli
