#include "cli/member_option.h"

#include "cli/recording_dir.h"
#include "store/members.h"

namespace slsdbg::cli {

void MemberOption::add(Options& opts) {
  opts.text("-p,--pid", pid_, "a process id (PID.N: the N-th process with that pid, as `slsdbg info` lists it)")->each([this](const std::string&) { given_ = true; });
}

Result<std::string> MemberOption::resolve(const std::string& rec) const {
  std::string dir = TRY(recorder::resolve_recording(rec));
  if (!given_) return dir;
  if (!store::is_member_name(pid_))
    return Error::bad_input("-p " + pid_ + ": not a process id (PID, or PID.N as `slsdbg info` lists a reused pid)");
  return store::member_recording(dir, pid_);
}

}  // namespace slsdbg::cli
