#include "common/log.h"

#include <cstdarg>
#include <cstdlib>
#include <cstring>

#include "common/clock.h"

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

namespace {

// Taken as the program's static initialisers run: SLSDBG_LOG_TIME=1 prefixes
// each line with the milliseconds since then, to see where a run's time goes.
const uint64_t start_ns = monotonic_ns();

bool with_time() {
  static const bool on = std::getenv("SLSDBG_LOG_TIME") != nullptr;
  return on;
}

}  // namespace

void write(Level level, std::string_view component, const char* fmt, ...) {
  if (level < threshold()) return;
  static const char* names[] = {"debug", "info", "warn", "error"};
  if (with_time()) std::fprintf(stderr, "%9.3f ", (monotonic_ns() - start_ns) / 1e6);
  std::fprintf(stderr, "slsdbg %s [%.*s]: ", names[static_cast<int>(level)],
               static_cast<int>(component.size()), component.data());
  va_list ap;
  va_start(ap, fmt);
  std::vfprintf(stderr, fmt, ap);
  va_end(ap);
  std::fputc('\n', stderr);
}

}  // namespace slsdbg::log
