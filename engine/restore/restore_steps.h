// The steps of restore_checkpoint (restore.cc), one file per kind of state:
//   restore_address_space.cc  unmap the restorer, map + fill + protect every region
//   restore_mm.cc             brk and the kernel's layout fields, /proc/PID/exe
//   restore_files.cc          cwd and the fd table: files
//   restore_fd_objects.cc     the fd table: pipes, socketpairs, eventfds, timerfds,
//                             signalfds, epolls
//   restore_signals.cc        handlers, alternate stacks, pending signals, mask
//   restore_registers.cc      GPRs, fs/gs base, XSAVE
//   restore_threads.cc        the other threads, each thread's clear_child_tid
//                             and robust futex list
// Each appends what it could not reproduce to report.warnings.
#pragma once

#include <sys/types.h>

#include <map>
#include <string>

#include "common/ids.h"
#include "common/result.h"
#include "engine/restore/remote_calls.h"
#include "engine/restore/restore.h"
#include "engine/restore/restore_plan.h"
#include "store/process_state.h"
#include "store/recording.h"

namespace slsdbg::restore {

// How warnings and --verify name a descriptor: "fd 5 (pipe:[123])".
inline std::string fd_label(const store::FdEntry& e) { return "fd " + std::to_string(e.fd) + " (" + e.path + ")"; }

// Leaves only the injection area (and [vsyscall]) of the restorer, then maps
// the scratch range of the plan.
Status unmap_restorer(RemoteCalls& rc, InjectArea inject, const RestorePlan& plan);
Status map_regions(RemoteCalls& rc, const RestorePlan& plan, RestoreReport& report);
// Maps the kernel's vDSO at the recorded address when the layouts match and
// removes the vvar/vdso steps from the plan (restore_vdso.cc).
Status map_kernel_vdso(RemoteCalls& rc, const store::RecordingReader& reader, CheckpointId k, RestorePlan& plan);
Status fill_regions(RemoteCalls& rc, const store::RecordingReader& reader, CheckpointId k, RestorePlan& plan,
                    RestoreReport& report);
Status protect_regions(RemoteCalls& rc, const RestorePlan& plan);
// Marks the private anonymous regions with recorded contents as lazy; returns them.
std::vector<std::pair<uint64_t, uint64_t>> mark_lazy_regions(RestorePlan& plan);

Status restore_mm(RemoteCalls& rc, const store::RecordingReader& reader, CheckpointId k,
                  const store::ProcessState& state, RestoreReport& report);
Status restore_files(RemoteCalls& rc, const store::ProcessState& state, RestoreReport& report);
Status restore_fd_numbers(RemoteCalls& rc, const store::ProcessState& state, RestoreReport& report);
// The descriptors that are not files (restore_files calls it).
Status make_fd_objects(RemoteCalls& rc, const store::ProcessState& state, RestoreReport& report);
// `deliveries`: the Signal events that open segment k (signals the recorder
// delivered right after the checkpoint); they are queued with their siginfo
// to the thread each names (`live_tids`: recorded tid -> the live thread;
// one not listed goes to the leader).
Status restore_signals(RemoteCalls& rc, const store::ProcessState& state, const std::vector<store::Event>& deliveries,
                       const std::map<int32_t, process::Task*>& live_tids, RestoreReport& report);
Status restore_registers(process::Task& task, const store::ThreadState& thread);
// The leader's clear_child_tid (set_tid_address) and robust futex list.
Status restore_thread_ids(RemoteCalls& rc, const store::ProcessState& state, RestoreReport& report);
// Creates threads[1..] of the checkpoint, each stopped with its registers,
// mask, pending signals and robust futex list; in the checkpoint's order.
Result<std::vector<RestoredThread>> restore_threads(RemoteCalls& rc, const store::ProcessState& state,
                                                    RestoreReport& report);

}  // namespace slsdbg::restore
