#include "recorder/record/file_keeper.h"

#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <utility>

#include "common/log.h"
#include "store/kept_file_cache.h"
#include "store/kept_files.h"

namespace slsdbg::recorder {

std::function<bool(const store::Mapping&)> file_keeper(const std::string& recording_dir, const std::string& pool_dir) {
  const char* env = std::getenv("SLSDBG_KEEP_FILES");
  if (env && std::strcmp(env, "off") == 0) return {};
  // One answer per file: a library mapped in four segments is opened once.
  auto known = std::make_shared<std::map<std::pair<uint64_t, uint64_t>, bool>>();
  // Linked from the per-user cache where it can be (store/kept_file_cache.h).
  return [recording_dir, pool_dir, known, cache = store::kept_file_cache_dir()](const store::Mapping& m) {
    if (!store::keepable(m)) return false;
    auto [it, fresh] = known->try_emplace({m.dev, m.inode}, false);
    if (!fresh) return it->second;
    auto kept = store::keep_mapped_file(recording_dir, m, pool_dir, cache);
    if (!kept.ok()) {
      SLSDBG_DEBUG("record", "%s: copying its pages instead (%s)", m.path.c_str(), kept.error().message.c_str());
      return false;
    }
    it->second = *kept;
    return it->second;
  };
}

}  // namespace slsdbg::recorder
