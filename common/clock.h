// Monotonic nanoseconds, for stop times and deadlines.
#pragma once

#include <time.h>

#include <cstdint>

namespace slsdbg {

inline uint64_t monotonic_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000ull + ts.tv_nsec;
}

}  // namespace slsdbg
