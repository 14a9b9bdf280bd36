#include "common/log.h"

#include <cstdarg>
#include <cstdlib>
#include <cstring>

namespace slsdbg::log {

Level threshold() {
  static const Level level = [] {
    const char* env = std::getenv("SLSDBG_LOG");
    if (!env) return Level::Warn;
    if (!std::strcmp(env, "debug")) return Level::Debug;
    if (!std::strcmp(env, "info")) return Level::Info;
    if (!std::strcmp(env, "error")) return Level::Error;
    return Level::Warn;
  }();
  return level;
}

void write(Level level, std::string_view component, const char* fmt, ...) {
  if (level < threshold()) return;
  static const char* names[] = {"debug", "info", "warn", "error"};
  std::fprintf(stderr, "slsdbg %s [%.*s]: ", names[static_cast<int>(level)],
               static_cast<int>(component.size()), component.data());
  va_list ap;
  va_start(ap, fmt);
  std::vfprintf(stderr, fmt, ap);
  va_end(ap);
  std::fputc('\n', stderr);
}

}  // namespace slsdbg::log
