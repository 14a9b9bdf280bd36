// What `slsdbg replay` does with a recording besides --check: serve it to one
// debugger (--server), or start the real GDB already connected to it over a
// private Unix socket, with the recorded program's symbols loaded (like
// `rr replay`). cli/cmd_replay.cc parses; this does.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/result.h"
#include "gdbserver/protocol/server.h"
#include "store/recording.h"

namespace slsdbg::gdbserver {

struct ReplayFrontendOptions {
  std::optional<std::string> start_at;  // goto before the debugger connects: "K", a moment or a bookmark
  std::string recording_dir;            // for the build-id check and REC/pack ("": neither)
  std::string extra_gdb_setup;          // GDB commands after the connection (cli/replay_inferiors.h)
};

// Listens on `spec`, prints "listening on ADDRESS" and how to connect to
// stdout, serves one client until it kills, detaches or disconnects.
// Returns the process exit code.
Result<int> serve_recording(store::RecordingReader& reader, const ListenSpec& spec, RemoteAccess access,
                            const ReplayFrontendOptions& options);

// Starts `gdb` (or $SLSDBG_GDB) connected to the recording through a socket in
// a private 0700 directory; `gdb_args` are appended to GDB's command line
// after slsdbg's own setup. Returns GDB's exit code.
Result<int> run_gdb_on_recording(store::RecordingReader& reader, const std::vector<std::string>& gdb_args,
                                 const ReplayFrontendOptions& options);

}  // namespace slsdbg::gdbserver
