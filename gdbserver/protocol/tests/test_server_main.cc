// gdbproto_test_server [--forever] [--allow-remote] [LISTEN]: serves the
// in-memory test target (memory_test_target.h) to one client, for the
// end-to-end tests with the real gdb and lldb. Prints "listening on ADDRESS"
// once it accepts connections. --forever: continue runs until interrupted
// (and prints "running until interrupted" when it starts to).
#include <cstdio>
#include <cstring>
#include <string>

#include "gdbserver/protocol/server.h"
#include "gdbserver/protocol/tests/memory_test_target.h"

using namespace slsdbg;
using namespace slsdbg::gdbserver;

int main(int argc, char** argv) {
  std::string listen = "127.0.0.1:0";
  RemoteAccess access = RemoteAccess::LoopbackOnly;
  testing::ForwardEnd end = testing::ForwardEnd::HistoryEnd;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--forever") == 0) {
      end = testing::ForwardEnd::RunsUntilInterrupted;
    } else if (std::strcmp(argv[i], "--allow-remote") == 0) {
      access = RemoteAccess::AllowRemote;
    } else {
      listen = argv[i];
    }
  }
  auto spec = parse_listen_spec(listen);
  if (!spec.ok()) {
    std::fprintf(stderr, "gdbproto_test_server: %s\n", spec.error().message.c_str());
    return 2;
  }
  auto listener = Listener::open(*spec, access);
  if (!listener.ok()) {
    std::fprintf(stderr, "gdbproto_test_server: %s\n", listener.error().message.c_str());
    return 2;
  }
  std::printf("listening on %s\n", listener->address().c_str());
  std::fflush(stdout);
  auto conn = listener->accept_one();
  if (!conn.ok()) {
    std::fprintf(stderr, "gdbproto_test_server: %s\n", conn.error().message.c_str());
    return 1;
  }
  testing::MemoryTestTarget target(testing::kAllCapabilities, end);
  target.on_running = [] {
    std::printf("running until interrupted\n");
    std::fflush(stdout);
  };
  auto status = serve_connection(conn->get(), target);
  if (!status.ok()) {
    std::fprintf(stderr, "gdbproto_test_server: %s\n", status.error().message.c_str());
    return 1;
  }
  return 0;
}
