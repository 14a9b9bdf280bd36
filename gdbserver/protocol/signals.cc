#include "gdbserver/protocol/signals.h"

#include <csignal>

namespace slsdbg::gdbserver {
namespace {

struct SignalPair {
  int host;
  int gdb;
};

// The classic signals. Realtime signals follow a formula below.
constexpr SignalPair kClassic[] = {
    {SIGHUP, 1},   {SIGINT, 2},     {SIGQUIT, 3},   {SIGILL, 4},    {SIGTRAP, 5},  {SIGABRT, 6},
    {SIGFPE, 8},   {SIGKILL, 9},    {SIGBUS, 10},   {SIGSEGV, 11},  {SIGSYS, 12},  {SIGPIPE, 13},
    {SIGALRM, 14}, {SIGTERM, 15},   {SIGURG, 16},   {SIGSTOP, 17},  {SIGTSTP, 18}, {SIGCONT, 19},
    {SIGCHLD, 20}, {SIGTTIN, 21},   {SIGTTOU, 22},  {SIGIO, 23},    {SIGXCPU, 24}, {SIGXFSZ, 25},
    {SIGVTALRM, 26}, {SIGPROF, 27}, {SIGWINCH, 28}, {SIGUSR1, 30},  {SIGUSR2, 31}, {SIGPWR, 32},
};

// GDB numbers realtime signal 32 as 77, 33..63 as 45..75 and 64..127 as 78..141.
constexpr int kGdbRealtime32 = 77;
constexpr int kGdbRealtime33 = 45;
constexpr int kGdbRealtime64 = 78;

}  // namespace

int gdb_signal_from_host(int host_signal) {
  if (host_signal == 0) return 0;
  for (const auto& p : kClassic) {
    if (p.host == host_signal) return p.gdb;
  }
  if (host_signal == 32) return kGdbRealtime32;
  if (host_signal >= 33 && host_signal <= 63) return host_signal - 33 + kGdbRealtime33;
  if (host_signal >= 64 && host_signal <= 127) return host_signal - 64 + kGdbRealtime64;
  return kGdbSignalUnknown;
}

int host_signal_from_gdb(int gdb_signal) {
  if (gdb_signal == 0) return 0;
  for (const auto& p : kClassic) {
    if (p.gdb == gdb_signal) return p.host;
  }
  if (gdb_signal == kGdbRealtime32) return 32;
  if (gdb_signal >= kGdbRealtime33 && gdb_signal <= kGdbRealtime33 + 30) return gdb_signal - kGdbRealtime33 + 33;
  if (gdb_signal >= kGdbRealtime64 && gdb_signal <= kGdbRealtime64 + 63) {
    int host = gdb_signal - kGdbRealtime64 + 64;
    return host <= 64 ? host : 0;  // Linux stops at 64
  }
  return 0;
}

}  // namespace slsdbg::gdbserver
