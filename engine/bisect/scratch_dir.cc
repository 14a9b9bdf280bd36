#include "engine/bisect/scratch_dir.h"

#include <stdlib.h>

#include <filesystem>
#include <utility>

#include "engine/dump/core_writer.h"

namespace slsdbg::bisect {

Result<ScratchDir> ScratchDir::create() {
  const char* tmp = std::getenv("TMPDIR");
  std::string tmpl = std::string(tmp && *tmp ? tmp : "/tmp") + "/slsdbg-bisect.XXXXXX";
  if (!::mkdtemp(tmpl.data())) return Error::from_errno("mkdtemp " + tmpl);  // mkdtemp makes it 0700
  return ScratchDir(tmpl);
}

ScratchDir::ScratchDir(ScratchDir&& other) noexcept : path_(std::exchange(other.path_, {})) {}

ScratchDir::~ScratchDir() {
  if (path_.empty()) return;
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

Result<std::string> write_core_of(const StateView& at, const ScratchDir& dir, const std::string& name) {
  std::string path = dir.path() + "/" + name;
  dump::CoreOptions options;
  auto written = dump::write_core(*at.state, *at.memory, path, options);
  if (!written.ok()) return written.error().context("writing the core of " + at.where);
  return path;
}

}  // namespace slsdbg::bisect
