// slsdbg pack: copy what a recording maps into it (engine/replay/pack.h).
#include <cstdio>
#include <string>
#include <vector>

#include "cli/command.h"
#include "cli/options.h"
#include "cli/recording_dir.h"
#include "engine/replay/pack.h"
#include "store/recording.h"

namespace slsdbg::cli {
namespace {

constexpr const char* kUsage =
    "usage: slsdbg pack REC\n"
    "\n"
    "Copies every file the recording mapped (the program, its libraries, the\n"
    "loader, mapped data files) into REC/pack/<original path>. The recording\n"
    "then replays and debugs with its own copies when the originals were\n"
    "rebuilt, moved or removed, and can be moved to another directory or to a\n"
    "machine with the same CPU features. Fails, naming the file, when one\n"
    "changed since recording. REC is a path or a name under $SLSDBG_DIR.\n";

int run_pack(const std::vector<std::string>& args) {
  std::string rec;
  Options opts("pack");
  opts.recording(rec);
  if (auto done = opts.parse(args)) return *done;
  auto dir = recorder::resolve_recording(rec);
  if (!dir.ok()) return fail("pack: " + dir.error().message);
  auto reader = store::RecordingReader::open(*dir);
  if (!reader.ok()) return fail("pack: " + reader.error().message);
  auto summary = replay::pack_recording(**reader, *dir);
  if (!summary.ok()) return fail("pack: " + summary.error().message);
  std::printf("packed %llu files (%.1f MiB) into %s/pack; %llu were there already\n",
              static_cast<unsigned long long>(summary->files), static_cast<double>(summary->bytes) / (1 << 20),
              dir->c_str(), static_cast<unsigned long long>(summary->already));
  return 0;
}

Registrar reg({"pack", "copy the binaries and libraries a recording maps into it", kUsage, run_pack, 75});

}  // namespace
}  // namespace slsdbg::cli
