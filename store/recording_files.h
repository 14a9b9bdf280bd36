// Names of the fixed files in a recording directory.
#pragma once

namespace slsdbg::store {

inline constexpr const char* kWriterLockFile = "writer.lock";        // flock'ed by the live writer
inline constexpr const char* kRetentionLockFile = "retention.lock";  // writer commit vs. retention

}  // namespace slsdbg::store
