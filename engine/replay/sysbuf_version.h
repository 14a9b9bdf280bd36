// Replay runs this build's syscall buffer stub (process/syscallbuf_stub.h)
// under the sites a recording patched, so a recording made with another
// stub cannot be replayed exactly: these refuse it with one clear line.
// The recorded version is the store summary key kSysbufStubSummaryKey.
#pragma once

#include <vector>

#include "common/result.h"
#include "store/event.h"
#include "store/recording.h"

namespace slsdbg::replay {

// Refuses a recording that names another stub version.
Status check_sysbuf_version(const store::RecordingReader& reader);

// True when the recording was made with the buffer (it names a stub
// version): its vDSO clock reads went through the stub.
Result<bool> recorded_with_sysbuf(const store::RecordingReader& reader);

// A recording that names none (made before the version was stored) but
// holds calls made from the stub was made by an older stub: refused when
// such a segment's events are read.
Status check_sysbuf_events(const store::RecordingReader& reader, const std::vector<store::Event>& events);

}  // namespace slsdbg::replay
