#include "recorder/record/exec_follow.h"

#include <elf.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <vector>

#include "common/log.h"
#include "process/inject.h"
#include "process/vdso_patch.h"

namespace slsdbg::recorder {

using process::patch_vdso_time_functions;

Result<std::unique_ptr<CheckpointCapture>> arm_new_image(process::Task& task, TrackerChoice tracker,
                                                         const CaptureOptions& options, process::VdsoRoute vdso) {
  const pid_t pid = task.tid().value;
  task.forget_address_space();
  TRY_CTX(process::install_injection_page(task), "installing the injection page after execve");
  const int patched = TRY(patch_vdso_time_functions(pid, vdso));
  SLSDBG_DEBUG("record", "after execve: patched %d vDSO entry points", patched);
  return TRY_CTX(CheckpointCapture::create(pid, tracker, options),
                 "setting up checkpoint capture after execve");
}

namespace {

// The NT_GNU_BUILD_ID note of an ELF64 file, in hex.
std::string build_id_of(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  Elf64_Ehdr eh;
  if (!f.read(reinterpret_cast<char*>(&eh), sizeof eh) || std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
      eh.e_ident[EI_CLASS] != ELFCLASS64)
    return "";
  for (int i = 0; i < eh.e_phnum; i++) {
    Elf64_Phdr ph;
    f.seekg(static_cast<std::streamoff>(eh.e_phoff + uint64_t(i) * eh.e_phentsize));
    if (!f.read(reinterpret_cast<char*>(&ph), sizeof ph)) return "";
    if (ph.p_type != PT_NOTE || ph.p_filesz > (1 << 16)) continue;
    std::vector<char> notes(ph.p_filesz);
    f.seekg(static_cast<std::streamoff>(ph.p_offset));
    if (!f.read(notes.data(), static_cast<std::streamsize>(notes.size()))) return "";
    for (size_t off = 0; off + sizeof(Elf64_Nhdr) <= notes.size();) {
      Elf64_Nhdr nh;
      std::memcpy(&nh, notes.data() + off, sizeof nh);
      const size_t name_at = off + sizeof nh, desc_at = name_at + ((nh.n_namesz + 3) & ~3u);
      const size_t next = desc_at + ((nh.n_descsz + 3) & ~3u);
      if (next > notes.size()) break;
      if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 && std::memcmp(notes.data() + name_at, "GNU", 4) == 0) {
        static const char kHex[] = "0123456789abcdef";
        std::string hex;
        for (size_t j = 0; j < nh.n_descsz; j++) {
          const auto b = static_cast<unsigned char>(notes[desc_at + j]);
          hex += kHex[b >> 4];
          hex += kHex[b & 15];
        }
        return hex;
      }
      off = next;
    }
  }
  return "";
}

}  // namespace

ExecImage exec_image(pid_t pid) {
  ExecImage img;
  char buf[4096];
  const std::string link = "/proc/" + std::to_string(pid) + "/exe";
  const ssize_t n = readlink(link.c_str(), buf, sizeof buf - 1);
  if (n > 0) img.path.assign(buf, static_cast<size_t>(n));
  img.build_id = build_id_of(link);  // through /proc: the very file mapped, even if replaced since
  return img;
}

}  // namespace slsdbg::recorder
