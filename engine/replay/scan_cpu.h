#pragma once
// The second CPU a reverse scan counts on (timeline_scan_ahead.cc): one
// this process may run on other than the one replayed processes are pinned
// to.
namespace slsdbg::replay {

// SLSDBG_REPLAY_SCAN_AHEAD=off: one CPU only (measurements).
bool scan_ahead_off();

// A CPU other than `pinned` among those the process started with; -1: none.
int other_cpu(int pinned);

}  // namespace slsdbg::replay
