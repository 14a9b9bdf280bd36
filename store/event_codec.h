// Encoding of one Event as an event-log record payload (docs/formats/event-log.md):
// kind, a presence bitmap, then only the fields that differ from their defaults.
#pragma once

#include <cstdint>
#include <vector>

#include "common/result.h"
#include "store/event.h"

namespace slsdbg::store {

void encode_event(const Event& event, std::vector<uint8_t>& out);  // appends
Result<Event> decode_event(const uint8_t* data, size_t size);

}  // namespace slsdbg::store
