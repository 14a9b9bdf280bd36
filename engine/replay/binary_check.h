// Are the binaries a recording mapped still the ones that ran? Each file
// mapping carries the file's build-id (recorded from /proc/PID/maps); replay
// compares it with the file at that path now, or with the copy that
// `slsdbg pack` put in REC/pack/<original path>.
#pragma once

#include <string>
#include <vector>

#include "store/pack_layout.h"
#include "store/recording.h"

namespace slsdbg::replay {

using store::pack_root;  // REC/pack

struct MappedFile {
  std::string path;
  std::string build_id;  // recorded; "" when the file had none
};

// Every file the recording mapped (first, last and every exec checkpoint), by path.
std::vector<MappedFile> mapped_files(const store::RecordingReader& reader);

// One warning per file that is missing or has another build-id now, naming
// it; "using the packed copy" when REC/pack holds the original. `packed`
// tells whether the pack holds every mapped file with its recorded build-id.
std::vector<std::string> check_binaries(const store::RecordingReader& reader, const std::string& recording_dir,
                                        bool* packed);

// "" when this CPU's vendor and feature bits (CPUID leaves 0, 1, 7, 0xD,
// 0x80000001) are the recording's; else one line naming the first that
// differs: a program that picks code by CPU features may then diverge.
std::string check_cpu(const store::RecordingReader& reader);

}  // namespace slsdbg::replay
