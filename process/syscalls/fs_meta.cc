// File-system metadata: stat family, directory listing, links, paths, access.
#include <linux/stat.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>

#include "process/syscalls/model.h"

namespace slsdbg::process {

void register_fs_meta_models(std::vector<ModelEntry>& out) {
  out.insert(out.end(), {
      {SYS_stat, {"stat", fixed_out<1, sizeof(struct stat)>}},
      {SYS_fstat, {"fstat", fixed_out<1, sizeof(struct stat)>}},
      {SYS_lstat, {"lstat", fixed_out<1, sizeof(struct stat)>}},
      {SYS_newfstatat, {"newfstatat", fixed_out<2, sizeof(struct stat)>}},
      {SYS_statx, {"statx", fixed_out<4, sizeof(struct statx)>}},
      {SYS_statfs, {"statfs", fixed_out<1, sizeof(struct statfs)>}},
      {SYS_fstatfs, {"fstatfs", fixed_out<1, sizeof(struct statfs)>}},
      {SYS_getdents64, {"getdents64", result_bytes<1>}},
      {SYS_getdents, {"getdents", result_bytes<1>}},
      {SYS_readlink, {"readlink", result_bytes<1>}},
      {SYS_readlinkat, {"readlinkat", result_bytes<2>}},
      {SYS_getcwd, {"getcwd", result_bytes<0>}},
      {SYS_access, {"access", no_outputs}},
      {SYS_faccessat, {"faccessat", no_outputs}},
      {SYS_faccessat2, {"faccessat2", no_outputs}},
      {SYS_chdir, {"chdir", no_outputs}},
      {SYS_fchdir, {"fchdir", no_outputs}},
      {SYS_mkdir, {"mkdir", no_outputs}},
      {SYS_mkdirat, {"mkdirat", no_outputs}},
      {SYS_rmdir, {"rmdir", no_outputs}},
      {SYS_unlink, {"unlink", no_outputs}},
      {SYS_unlinkat, {"unlinkat", no_outputs}},
      {SYS_rename, {"rename", no_outputs}},
      {SYS_renameat, {"renameat", no_outputs}},
      {SYS_renameat2, {"renameat2", no_outputs}},
      {SYS_link, {"link", no_outputs}},
      {SYS_linkat, {"linkat", no_outputs}},
      {SYS_symlink, {"symlink", no_outputs}},
      {SYS_symlinkat, {"symlinkat", no_outputs}},
      {SYS_chmod, {"chmod", no_outputs}},
      {SYS_fchmod, {"fchmod", no_outputs}},
      {SYS_fchmodat, {"fchmodat", no_outputs}},
      {SYS_chown, {"chown", no_outputs}},
      {SYS_fchown, {"fchown", no_outputs}},
      {SYS_lchown, {"lchown", no_outputs}},
      {SYS_fchownat, {"fchownat", no_outputs}},
      {SYS_utimensat, {"utimensat", no_outputs}},
      {SYS_umask, {"umask", no_outputs}},
  });
}

}  // namespace slsdbg::process
