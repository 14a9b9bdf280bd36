// Test tool: rewrites one logged syscall event of a recording in place, so a
// test can check that replay reports the divergence at exactly that event.
// usage: replay_alter_event REC SEGMENT INDEX   (flips bit 0 of the first argument)
#include <cstdio>
#include <cstdlib>
#include <string>

#include "store/event_log.h"
#include "store/fs_util.h"

using namespace slsdbg;

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: replay_alter_event REC SEGMENT INDEX\n");
    return 2;
  }
  const std::string rec = argv[1];
  const uint64_t seg = std::strtoull(argv[2], nullptr, 10);
  const uint64_t index = std::strtoull(argv[3], nullptr, 10);
  const std::string path = store::event_log_path(rec, seg);
  auto reader = store::EventLogReader::open(path, seg);
  if (!reader.ok()) {
    std::fprintf(stderr, "replay_alter_event: %s\n", reader.error().message.c_str());
    return 1;
  }
  auto events = reader->all();
  if (!events.ok() || index >= events->size()) {
    std::fprintf(stderr, "replay_alter_event: segment %llu has no event %llu\n", (unsigned long long)seg,
                 (unsigned long long)index);
    return 1;
  }
  store::Event& ev = (*events)[index];
  if (ev.kind != store::EventKind::Syscall) {
    std::fprintf(stderr, "replay_alter_event: event %llu is not a syscall\n", (unsigned long long)index);
    return 1;
  }
  ev.args[0] ^= 1;
  const std::string tmp = path + ".altered";
  store::EventLogWriter writer(tmp, seg);
  for (const store::Event& e : *events) {
    if (!writer.append(e).ok()) return 1;
  }
  if (!writer.seal().ok() || std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::perror("replay_alter_event");
    return 1;
  }
  return 0;
}
