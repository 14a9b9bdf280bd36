// Minimal leveled logging to stderr. SLSDBG_LOG=debug|info|warn|error;
// SLSDBG_LOG_TIME=1 starts each line with milliseconds since start-up.
#pragma once

#include <cstdio>
#include <string_view>

namespace slsdbg::log {

enum class Level { Debug = 0, Info = 1, Warn = 2, Error = 3 };

Level threshold();
void write(Level level, std::string_view component, const char* fmt, ...)
    __attribute__((format(printf, 3, 4)));

}  // namespace slsdbg::log

#define SLSDBG_DEBUG(comp, ...) ::slsdbg::log::write(::slsdbg::log::Level::Debug, comp, __VA_ARGS__)
#define SLSDBG_INFO(comp, ...) ::slsdbg::log::write(::slsdbg::log::Level::Info, comp, __VA_ARGS__)
#define SLSDBG_WARN(comp, ...) ::slsdbg::log::write(::slsdbg::log::Level::Warn, comp, __VA_ARGS__)
#define SLSDBG_ERROR(comp, ...) ::slsdbg::log::write(::slsdbg::log::Level::Error, comp, __VA_ARGS__)
