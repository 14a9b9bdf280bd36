// Names of the fixed files in a recording directory.
#pragma once

namespace slsdbg::store {

inline constexpr const char* kWriterLockFile = "writer.lock";        // flock'ed by the live writer
inline constexpr const char* kRetentionLockFile = "retention.lock";  // writer commit vs. retention
// Every open reader holds a shared flock; the writer reuses blocks freed by
// retention only when it can take it exclusively (no reader can still be
// looking at a dropped checkpoint).
inline constexpr const char* kReadersLockFile = "readers.lock";

}  // namespace slsdbg::store
