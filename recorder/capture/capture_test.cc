// Checks checkpoint capture on a real tracee (tests/programs/capture_pages):
// the first capture holds every populated page; later captures hold exactly
// the pages written in between, with their bytes; new mappings, munmap,
// MADV_DONTNEED and brk growth; both trackers find the same dirty set; the
// registers equal PTRACE_GETREGS; and a capture -> store -> read-back round
// trip passes verify(), which also catches a page that differs. With activity
// reported, a capture re-reads handlers, brk and fds only after a note, yet
// finds a stack that grew without one.
#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <set>

#include "process/inject.h"
#include "process/proc_signals.h"
#include "process/queued_signals.h"
#include "process/test_tracee.h"
#include "recorder/capture/checkpoint_capture.h"
#include "store/recording.h"

namespace slsdbg::recorder {
namespace {

using process::testing::CommandTracee;

struct Fixture {
  CommandTracee tracee;
  std::unique_ptr<CheckpointCapture> capture;
};

Result<Fixture> start(TrackerChoice choice, const CaptureOptions& options = {}) {
  auto t = TRY(CommandTracee::start());
  TRY(t.command("G"));  // past the dynamic loader, stopped in read()
  auto c = TRY(CheckpointCapture::create(t.pid(), choice, options));
  return Fixture{std::move(t), std::move(c)};
}

// Dirty page addresses of `in` within [start, end).
std::set<uint64_t> dirty_in(const store::CheckpointInput& in, uint64_t start, uint64_t end) {
  std::set<uint64_t> out;
  for (const auto& p : in.dirty)
    if (p.vaddr >= start && p.vaddr < end) out.insert(p.vaddr);
  return out;
}

std::string hex(uint64_t v) {
  char buf[32];
  snprintf(buf, sizeof buf, "%llx", static_cast<unsigned long long>(v));
  return buf;
}
std::string hex_addr(uint64_t v) { return "0x" + hex(v); }

const store::FdEntry* find_fd(const store::CheckpointInput& in, int fd) {
  for (const auto& e : in.state.fds)
    if (e.fd == fd) return &e;
  return nullptr;
}

const store::Mapping* find_mapping(const store::CheckpointInput& in, const std::string& path) {
  for (const auto& m : in.state.mappings)
    if (m.path == path) return &m;
  return nullptr;
}

const uint8_t* page_data(const store::CheckpointInput& in, uint64_t vaddr) {
  for (const auto& p : in.dirty)
    if (p.vaddr == vaddr) return p.data;
  return nullptr;
}

std::set<uint64_t> pages(uint64_t start, size_t n) {
  std::set<uint64_t> s;
  for (size_t i = 0; i < n; ++i) s.insert(start + i * 4096);
  return s;
}

class CaptureTest : public ::testing::TestWithParam<TrackerChoice> {};

TEST_P(CaptureTest, FirstCaptureHoldsEveryPopulatedPage) {
  auto f = start(GetParam());
  ASSERT_OK(f);
  uint64_t global = *f->tracee.command("G");
  auto in = f->capture->capture({f->tracee.pid()});
  ASSERT_OK(in);
  // The 64 KiB global buffer (filled at startup) is there with its pattern.
  for (uint64_t a = global; a < global + 65536; a += 4096) {
    const uint8_t* d = page_data(*in, page_floor(a));
    ASSERT_NE(d, nullptr) << std::hex << a;
  }
  const uint8_t* d = page_data(*in, page_floor(global) + 4096);
  uint64_t off = page_floor(global) + 4096 - global;
  EXPECT_EQ(d[0], static_cast<uint8_t>(off));
  // Neither the injection pages nor the kernel's data mappings ([vvar] ...)
  // are in the image; [vdso] code is, every page of it.
  size_t vdso_pages = 0, vdso_size = 0;
  for (const auto& p : in->dirty) {
    EXPECT_FALSE(p.vaddr >= process::kInjectPageAddr && p.vaddr < process::kInjectPageAddr + process::kInjectAreaSize);
    for (const auto& m : in->state.mappings) {
      if (!(m.start <= p.vaddr && p.vaddr < m.end)) continue;
      if (m.path == "[vdso]") {
        ++vdso_pages;
      } else {
        EXPECT_FALSE(m.flags & store::flag(store::MappingFlags::Vdso)) << m.path;
      }
    }
  }
  for (const auto& m : in->state.mappings)
    if (m.path == "[vdso]") vdso_size = (m.end - m.start) / 4096;
  EXPECT_GT(vdso_size, 0u);
  EXPECT_EQ(vdso_pages, vdso_size);
  EXPECT_EQ(in->state.cmdline.size(), 1u);
  EXPECT_NE(in->state.exe.find("capture_pages"), std::string::npos);
  EXPECT_FALSE(in->state.auxv.empty());
  EXPECT_GE(in->state.fds.size(), 3u);
}

TEST_P(CaptureTest, LaterCapturesHoldExactlyTheWrittenPages) {
  auto f = start(GetParam());
  ASSERT_OK(f);
  uint64_t global = *f->tracee.command("G");
  uint64_t a = *f->tracee.command("M 8");  // new mapping: all 8 populated pages at the next capture
  ASSERT_OK(f->capture->note_address_space_change());
  auto c0 = f->capture->capture({f->tracee.pid()});
  ASSERT_OK(c0);
  EXPECT_EQ(dirty_in(*c0, a, a + 8 * 4096), pages(a, 8));
  EXPECT_EQ(page_data(*c0, a + 4096)[100], 2);

  auto c1 = f->capture->capture({f->tracee.pid()});  // nothing ran: nothing written
  ASSERT_OK(c1);
  for (const auto& p : c1->dirty)
    for (const auto& m : c1->state.mappings)
      if (m.start <= p.vaddr && p.vaddr < m.end) ADD_FAILURE() << std::hex << p.vaddr << " in " << m.start << "-" << m.end << " " << m.path << " prot " << m.prot;

  // Write pages 2..4 of the mapping and one page of the global buffer.
  ASSERT_OK(f->tracee.command("W " + hex(a + 2 * 4096) + " 3 77"));
  ASSERT_OK(f->tracee.command("W " + hex(page_ceil(global)) + " 1 a5"));
  auto c2 = f->capture->capture({f->tracee.pid()});
  ASSERT_OK(c2);
  EXPECT_EQ(dirty_in(*c2, a, a + 8 * 4096), pages(a + 2 * 4096, 3));
  EXPECT_EQ(dirty_in(*c2, page_floor(global), global + 65536), pages(page_ceil(global), 1));
  for (uint64_t p : pages(a + 2 * 4096, 3)) {
    const uint8_t* d = page_data(*c2, p);
    ASSERT_NE(d, nullptr);
    EXPECT_TRUE(std::all_of(d, d + 4096, [](uint8_t b) { return b == 0x77; }));
  }
  EXPECT_EQ(page_data(*c2, page_ceil(global))[4095], 0xa5);
  // The rest of what the program dirtied to run two commands (stack, stdio) is small.
  EXPECT_LT(c2->dirty.size(), 64u);
  EXPECT_TRUE(c2->cleared.empty());
}

// A MAP_SHARED mapping of a file opened read-only cannot be registered for
// write-protect (no VM_MAYWRITE), yet its contents change when the file does.
TEST_P(CaptureTest, ASharedReadOnlyFileMappingFollowsTheFile) {
  auto f = start(GetParam());
  ASSERT_OK(f);
  std::string path = std::string(getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp") + "/capture_shared_ro." + std::to_string(getpid());
  {
    FILE* fp = fopen(path.c_str(), "w");
    ASSERT_NE(fp, nullptr);
    std::string page(4096, 'a');
    fwrite(page.data(), 1, page.size(), fp);
    fclose(fp);
  }
  auto a = f->tracee.command("S " + path);
  ASSERT_OK(a);
  ASSERT_OK(f->capture->note_address_space_change());
  auto c0 = f->capture->capture({f->tracee.pid()});
  ASSERT_OK(c0);
  const uint8_t* d0 = page_data(*c0, *a);
  ASSERT_NE(d0, nullptr);
  EXPECT_EQ(d0[0], 'a');

  FILE* fp = fopen(path.c_str(), "r+");
  ASSERT_NE(fp, nullptr);
  fputs("changed behind the mapping", fp);
  fclose(fp);
  ASSERT_OK(f->tracee.command("G"));  // let the tracee run once
  auto c1 = f->capture->capture({f->tracee.pid()});
  ASSERT_OK(c1);
  const uint8_t* d1 = page_data(*c1, *a);
  ASSERT_NE(d1, nullptr) << "the changed file page is not in the dirty set";
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(d1), 7), "changed");
  unlink(path.c_str());
}

TEST_P(CaptureTest, MunmapAndDiscardAreCleared) {
  auto f = start(GetParam());
  ASSERT_OK(f);
  uint64_t a = *f->tracee.command("M 6");
  ASSERT_OK(f->capture->note_address_space_change());
  ASSERT_OK(f->capture->capture({f->tracee.pid()}));
  ASSERT_EQ(*f->tracee.command("U " + hex(a + 4096) + " 2"), 0u);
  ASSERT_OK(f->capture->note_address_space_change());
  ASSERT_EQ(*f->tracee.command("D " + hex(a + 4 * 4096) + " 2"), 0u);
  ASSERT_OK(f->capture->note_discarded(a + 4 * 4096, a + 6 * 4096));
  auto c = f->capture->capture({f->tracee.pid()});
  ASSERT_OK(c);
  std::vector<std::pair<uint64_t, uint64_t>> want = {{a + 4096, a + 3 * 4096}, {a + 4 * 4096, a + 6 * 4096}};
  EXPECT_EQ(c->cleared, want);
  // Discarded pages read as zero now: a tracker may report them (page hashes
  // see the change), but only as zero pages. Untouched page 0 is not dirty.
  for (uint64_t p : dirty_in(*c, a, a + 6 * 4096)) {
    EXPECT_GE(p, a + 4 * 4096);
    const uint8_t* d = page_data(*c, p);
    EXPECT_TRUE(std::all_of(d, d + 4096, [](uint8_t b) { return b == 0; })) << std::hex << p;
  }
  for (const auto& m : c->state.mappings) EXPECT_FALSE(m.start < a + 3 * 4096 && a + 4096 < m.end) << std::hex << m.start;
  // New pages over an old range: a fresh mmap landing there is copied in full.
  uint64_t b = *f->tracee.command("M 2");
  ASSERT_OK(f->capture->note_address_space_change());
  auto c2 = f->capture->capture({f->tracee.pid()});
  ASSERT_OK(c2);
  EXPECT_EQ(dirty_in(*c2, b, b + 2 * 4096), pages(b, 2));
}

TEST_P(CaptureTest, MadviseDontneedIsFoundAtItsSyscallExit) {
  auto f = start(GetParam());
  ASSERT_OK(f);
  uint64_t a = *f->tracee.command("M 4");
  ASSERT_OK(f->capture->capture({f->tracee.pid()}));
  process::Task& task = f->tracee.task();
  ASSERT_OK(f->tracee.send("D " + hex(a + 4096) + " 2"));
  // Run syscall by syscall to the exit of madvise, as the recorder does.
  bool at_exit = false;
  for (int i = 0; i < 200 && !at_exit; ++i) {
    ASSERT_OK(task.syscall());
    auto w = task.wait();
    ASSERT_OK(w);
    if (w->kind != process::StopKind::SyscallStop) continue;
    auto info = task.syscall_info();
    ASSERT_OK(info);
    at_exit = info->op == PTRACE_SYSCALL_INFO_EXIT && task.regs()->orig_rax == SYS_madvise;
  }
  ASSERT_TRUE(at_exit);
  ASSERT_OK(f->capture->note_address_space_change());
  ASSERT_OK(task.cont());
  ASSERT_EQ(*f->tracee.read_reply(), 0u);
  ASSERT_OK(f->tracee.stop());
  auto c = f->capture->capture({f->tracee.pid()});
  ASSERT_OK(c);
  std::vector<std::pair<uint64_t, uint64_t>> want = {{a + 4096, a + 3 * 4096}};
  EXPECT_EQ(c->cleared, want);
}

TEST_P(CaptureTest, APatchedVdsoPageIsCaptured) {
  auto f = start(GetParam());
  ASSERT_OK(f);
  auto c0 = f->capture->capture({f->tracee.pid()});
  ASSERT_OK(c0);
  uint64_t vdso = 0;
  for (const auto& m : c0->state.mappings)
    if (m.path == "[vdso]") vdso = m.start;
  ASSERT_NE(vdso, 0u);
  const uint8_t patch[] = {0x0f, 0x05};  // as the recorder's vDSO patch writes code there
  ASSERT_OK(f->tracee.task().write_memory(RemoteAddr(vdso + 4096 + 64), patch));
  auto c1 = f->capture->capture({f->tracee.pid()});
  ASSERT_OK(c1);
  const uint8_t* d = page_data(*c1, vdso + 4096);
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d[64], 0x0f);
  EXPECT_EQ(d[65], 0x05);
}

TEST_P(CaptureTest, AMappingReplacedUnnoticedIsTakenAfresh) {
  auto f = start(GetParam());
  ASSERT_OK(f);
  uint64_t a = *f->tracee.command("M 4");
  ASSERT_OK(f->capture->capture({f->tracee.pid()}));
  // Same address, same kind of mapping: the map looks unchanged, the contents are new.
  ASSERT_EQ(*f->tracee.command("F " + hex(a) + " 4"), a);
  ASSERT_OK(f->tracee.command("W " + hex(a + 2 * 4096) + " 1 e1"));
  auto c = f->capture->capture({f->tracee.pid()});
  ASSERT_OK(c);
  const uint8_t* first = page_data(*c, a);
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(first[0], 0xf0);
  EXPECT_EQ(first[1], 0x00);
  ASSERT_NE(page_data(*c, a + 2 * 4096), nullptr);
  EXPECT_EQ(page_data(*c, a + 2 * 4096)[0], 0xe1);
  // Pages 1 and 3 are zero now: either cleared or captured as zero.
  for (uint64_t p : {a + 4096, a + 3 * 4096}) {
    const uint8_t* d = page_data(*c, p);
    bool cleared = false;
    for (const auto& [s, e] : c->cleared) cleared |= s <= p && p < e;
    EXPECT_TRUE(cleared || (d && std::all_of(d, d + 4096, [](uint8_t b) { return b == 0; }))) << std::hex << p;
  }
  // And tracking works again afterwards.
  ASSERT_OK(f->tracee.command("W " + hex(a + 3 * 4096) + " 1 e2"));
  auto c2 = f->capture->capture({f->tracee.pid()});
  ASSERT_OK(c2);
  EXPECT_EQ(dirty_in(*c2, a, a + 4 * 4096), pages(a + 3 * 4096, 1));
}

TEST_P(CaptureTest, BrkGrowthIsCaptured) {
  auto f = start(GetParam());
  ASSERT_OK(f);
  ASSERT_OK(f->capture->capture({f->tracee.pid()}));
  uint64_t old = *f->tracee.command("B 5");
  // No note_address_space_change(): capture itself notices the grown heap.
  auto c = f->capture->capture({f->tracee.pid()});
  ASSERT_OK(c);
  EXPECT_EQ(c->state.brk_current, old + 5 * 4096);
  EXPECT_LE(c->state.brk_start, old);
  for (uint64_t p : pages(page_ceil(old), 4)) {
    const uint8_t* d = page_data(*c, p);
    ASSERT_NE(d, nullptr) << std::hex << p;
    EXPECT_EQ(d[0], 0x5b);
  }
}

TEST_P(CaptureTest, RegistersAndSignalStateEqualPtrace) {
  auto f = start(GetParam());
  ASSERT_OK(f);
  uint64_t handler = *f->tracee.command("H");
  process::Task& task = f->tracee.task();
  ASSERT_OK(task.set_signal_mask(1u << (SIGUSR2 - 1)));
  auto regs = *task.regs();
  auto fp = *task.fpregs();
  auto xs = *task.xsave();
  auto c = f->capture->capture({f->tracee.pid()});
  ASSERT_OK(c);
  ASSERT_EQ(c->state.threads.size(), 1u);
  const auto& t = c->state.threads[0];
  EXPECT_EQ(std::memcmp(&t.regs, &regs, sizeof regs), 0);
  EXPECT_NE(t.regs.fs_base, 0u);
  EXPECT_EQ(std::memcmp(&t.fpregs, &fp, sizeof fp), 0);
  EXPECT_EQ(t.xsave, xs);
  EXPECT_EQ(t.sigmask, 1u << (SIGUSR2 - 1));
  EXPECT_EQ(t.tid.value, f->tracee.pid());
  EXPECT_EQ(c->state.sigactions[SIGUSR1 - 1].handler, handler);
  // Capture left the registers and the stop alone.
  EXPECT_EQ(std::memcmp(&regs, &*task.regs(), sizeof regs), 0);
  EXPECT_EQ(*task.signal_mask(), 1u << (SIGUSR2 - 1));
  ASSERT_OK(task.set_signal_mask(0));
  EXPECT_TRUE(f->tracee.command("G").ok());
}

// Blocked pending signals (thread- and process-directed, a real-time one
// queued more times than one PEEKSIGINFO batch holds) equal /proc's view.
TEST_P(CaptureTest, PendingSignalsEqualProcStatus) {
  auto f = start(GetParam());
  ASSERT_OK(f);
  process::Task& task = f->tracee.task();
  const int rt = SIGRTMIN + 1;
  const uint64_t mask = (1ull << (SIGUSR2 - 1)) | (1ull << (SIGTERM - 1)) | (1ull << (rt - 1));
  ASSERT_OK(task.set_signal_mask(mask));
  const pid_t pid = f->tracee.pid();
  ASSERT_EQ(syscall(SYS_tgkill, pid, pid, SIGUSR2), 0);
  for (int i = 0; i < 40; ++i) ASSERT_EQ(syscall(SYS_tgkill, pid, pid, rt), 0);
  ASSERT_EQ(kill(pid, SIGTERM), 0);  // blocked by its only thread: stays process-directed
  auto c = f->capture->capture({pid});
  ASSERT_OK(c);
  const auto& t = c->state.threads[0];
  EXPECT_EQ(t.sigpending, (1ull << (SIGUSR2 - 1)) | (1ull << (rt - 1)));
  EXPECT_EQ(c->state.shared_sigpending, 1ull << (SIGTERM - 1));
  auto proc = process::read_pending_signals(pid, pid);
  ASSERT_OK(proc);
  EXPECT_EQ(t.sigpending, proc->thread_pending);
  EXPECT_EQ(c->state.shared_sigpending, proc->shared_pending);
  EXPECT_EQ(t.sigmask, proc->blocked);
  auto none = process::unblocked_queued_signals(pid, true);
  ASSERT_OK(none);
  EXPECT_EQ(*none, 0u);
  // Unblocked (the tracee stays stopped): now deliverable.
  ASSERT_OK(task.set_signal_mask(1ull << (SIGTERM - 1)));
  auto some = process::unblocked_queued_signals(pid, true);
  ASSERT_OK(some);
  EXPECT_EQ(*some, (1ull << (SIGUSR2 - 1)) | (1ull << (rt - 1)));
}

// The tracee's commands make syscalls, but none is reported (as in a compute
// loop): the stack that grew by page faults alone is still found, with its pages.
TEST_P(CaptureTest, AStackGrownWithoutActivityIsCaptured) {
  auto f = start(GetParam(), CaptureOptions{.activity_reported = true});
  ASSERT_OK(f);
  auto c0 = f->capture->capture({f->tracee.pid()});
  ASSERT_OK(c0);
  const store::Mapping* stack0 = find_mapping(*c0, "[stack]");
  ASSERT_NE(stack0, nullptr);
  const uint64_t old_start = stack0->start;
  const uint64_t low = *f->tracee.command("K 256");
  ASSERT_LT(low, old_start) << "the stack did not grow";
  auto c1 = f->capture->capture({f->tracee.pid()});
  ASSERT_OK(c1);
  EXPECT_TRUE(f->capture->last_stats().state_reused);
  const store::Mapping* stack1 = find_mapping(*c1, "[stack]");
  ASSERT_NE(stack1, nullptr);
  EXPECT_LE(stack1->start, page_floor(low));
  // The lower half is far below anything the command's own calls touched since.
  for (uint64_t p : pages(page_ceil(low), 128)) {
    const uint8_t* d = page_data(*c1, p);
    ASSERT_NE(d, nullptr) << std::hex << p;
    EXPECT_TRUE(std::all_of(d, d + 4096, [](uint8_t b) { return b == 0x6b; })) << std::hex << p;
  }
}

INSTANTIATE_TEST_SUITE_P(Trackers, CaptureTest, ::testing::Values(TrackerChoice::UffdWp, TrackerChoice::PageHash),
                         [](const auto& info) { return info.param == TrackerChoice::UffdWp ? "UffdWp" : "PageHash"; });

TEST(Capture, BothTrackersFindTheSameDirtySet) {
  std::set<uint64_t> seen[2];
  int i = 0;
  for (TrackerChoice choice : {TrackerChoice::UffdWp, TrackerChoice::PageHash}) {
    auto f = start(choice);
    ASSERT_OK(f);
    EXPECT_STREQ(f->capture->tracker_name(), choice == TrackerChoice::UffdWp ? "uffd-wp-async" : "page-hash");
    uint64_t a = *f->tracee.command("M 32");
    ASSERT_OK(f->capture->capture({f->tracee.pid()}));
    for (int k : {1, 5, 6, 7, 20, 31}) ASSERT_OK(f->tracee.command("W " + hex(a + k * 4096) + " 1 " + hex(k + 16)));
    auto c = f->capture->capture({f->tracee.pid()});
    ASSERT_OK(c);
    for (uint64_t p : dirty_in(*c, a, a + 32 * 4096)) seen[i].insert((p - a) / 4096);
    ++i;
  }
  EXPECT_EQ(seen[0], (std::set<uint64_t>{1, 5, 6, 7, 20, 31}));
  EXPECT_EQ(seen[0], seen[1]);
}

TEST(Capture, EveryCopyPathCopiesTheSameBytes) {
  const CaptureOptions variants[] = {{CopyPath::ProcessVmReadv, CopyThreads::One},
                                     {CopyPath::ProcessVmReadv, CopyThreads::Two},
                                     {CopyPath::InTracee, CopyThreads::One}};
  for (const CaptureOptions& options : variants) {
    auto t = CommandTracee::start();
    ASSERT_OK(t);
    ASSERT_OK(t->command("G"));
    auto cap = CheckpointCapture::create(t->pid(), TrackerChoice::UffdWp, options);
    ASSERT_OK(cap);
    uint64_t a = *t->command("M 700");  // above the split threshold
    ASSERT_OK((*cap)->capture({t->pid()}));
    ASSERT_OK(t->command("W " + hex(a) + " 600 " + hex(0x42)));
    ASSERT_OK(t->command("W " + hex(a + 650 * 4096) + " 50 " + hex(0x43)));
    const uint8_t evil[] = {0x11};  // a read-only page written through /proc/PID/mem is dirty too
    uint64_t ro = *t->command("R");
    ASSERT_OK(t->task().write_memory(RemoteAddr(ro), evil));
    auto c = (*cap)->capture({t->pid()});
    ASSERT_OK(c);
    ASSERT_NE(page_data(*c, ro), nullptr);
    EXPECT_EQ(page_data(*c, ro)[0], 0x11);
    for (size_t i = 1; i < c->dirty.size(); ++i) ASSERT_LT(c->dirty[i - 1].vaddr, c->dirty[i].vaddr);
    auto set = dirty_in(*c, a, a + 700 * 4096);
    ASSERT_EQ(set.size(), 650u);
    for (uint64_t p : set) {
      const uint8_t* d = page_data(*c, p);
      uint8_t want = p < a + 600 * 4096 ? 0x42 : 0x43;
      ASSERT_TRUE(std::all_of(d, d + 4096, [&](uint8_t b) { return b == want; })) << std::hex << p;
    }
  }
}

TEST(Capture, EveryThreadOfAProcess) {
  auto f = start(TrackerChoice::UffdWp);
  ASSERT_OK(f);
  process::Task& leader = f->tracee.task();
  ASSERT_OK(leader.cont());
  ASSERT_OK(f->tracee.send("T"));
  // Drive the clone like a recorder: the leader's clone event, the new thread's first stop.
  auto w = leader.wait();
  ASSERT_OK(w);
  ASSERT_EQ(w->kind, process::StopKind::PtraceEvent);
  ASSERT_EQ(w->event, PTRACE_EVENT_CLONE);
  pid_t tid = static_cast<pid_t>(*leader.event_message());
  ASSERT_OK(leader.cont());
  process::Task thread(Tid(tid), f->tracee.pid());
  w = thread.wait();
  ASSERT_OK(w);
  ASSERT_TRUE(w->stopped());
  ASSERT_OK(thread.cont());
  ASSERT_EQ(static_cast<pid_t>(*f->tracee.read_reply()), tid);
  ASSERT_OK(f->tracee.stop());
  ASSERT_OK(thread.interrupt());
  for (;;) {  // the thread sits in pause(): its interrupt stop
    w = thread.wait();
    ASSERT_OK(w);
    if (w->kind == process::StopKind::PtraceEvent && w->event == PTRACE_EVENT_STOP) break;
    ASSERT_OK(thread.cont());
  }
  auto regs = thread.regs();
  ASSERT_OK(regs);
  auto c = f->capture->capture({f->tracee.pid(), tid});
  ASSERT_OK(c);
  ASSERT_EQ(c->state.threads.size(), 2u);
  EXPECT_EQ(c->state.threads[0].tid.value, f->tracee.pid());
  EXPECT_EQ(c->state.threads[1].tid.value, tid);
  EXPECT_EQ(std::memcmp(&c->state.threads[1].regs, &*regs, sizeof *regs), 0);
  EXPECT_NE(c->state.threads[1].regs.fs_base, c->state.threads[0].regs.fs_base);  // its own TLS
  EXPECT_FALSE(c->state.threads[1].xsave.empty());
}

// The caller reports activity: a capture without a note reuses the previous
// handlers, brk and fds; after note_tracee_activity() it sees the new ones.
TEST(Capture, ReportedActivityRereadsHandlersBrkAndFds) {
  auto f = start(TrackerChoice::UffdWp, CaptureOptions{.activity_reported = true});
  ASSERT_OK(f);
  auto c0 = f->capture->capture({f->tracee.pid()});
  ASSERT_OK(c0);
  EXPECT_FALSE(f->capture->last_stats().state_reused);  // the first capture reads everything
  const int fd = static_cast<int>(*f->tracee.command("O /dev/null"));
  const uint64_t handler = *f->tracee.command("H");
  const uint64_t old_brk = *f->tracee.command("B 2");
  ASSERT_EQ(find_fd(*c0, fd), nullptr);

  auto c1 = f->capture->capture({f->tracee.pid()});  // nothing reported
  ASSERT_OK(c1);
  EXPECT_TRUE(f->capture->last_stats().state_reused);
  EXPECT_EQ(find_fd(*c1, fd), nullptr);
  EXPECT_EQ(c1->state.sigactions[SIGUSR1 - 1].handler, c0->state.sigactions[SIGUSR1 - 1].handler);
  EXPECT_EQ(c1->state.brk_current, c0->state.brk_current);

  f->capture->note_tracee_activity();
  auto c2 = f->capture->capture({f->tracee.pid()});
  ASSERT_OK(c2);
  EXPECT_FALSE(f->capture->last_stats().state_reused);
  const store::FdEntry* e = find_fd(*c2, fd);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->path, "/dev/null");
  EXPECT_EQ(c2->state.sigactions[SIGUSR1 - 1].handler, handler);
  EXPECT_EQ(c2->state.brk_current, old_brk + 2 * 4096);

  auto c3 = f->capture->capture({f->tracee.pid()});  // reused again, now the new state
  ASSERT_OK(c3);
  EXPECT_TRUE(f->capture->last_stats().state_reused);
  EXPECT_NE(find_fd(*c3, fd), nullptr);
  EXPECT_EQ(c3->state.sigactions[SIGUSR1 - 1].handler, handler);
}

// note_fd_activity() (the syscall buffer's calls) re-reads the fd table
// only: a new fd shows, brk and handlers are the previous capture's.
TEST(Capture, FdActivityRereadsOnlyTheFdTable) {
  auto f = start(TrackerChoice::UffdWp, CaptureOptions{.activity_reported = true});
  ASSERT_OK(f);
  auto c0 = f->capture->capture({f->tracee.pid()});
  ASSERT_OK(c0);
  const int fd = static_cast<int>(*f->tracee.command("O /dev/null"));
  (void)*f->tracee.command("H");
  (void)*f->tracee.command("B 2");
  f->capture->note_fd_activity();
  auto c1 = f->capture->capture({f->tracee.pid()});
  ASSERT_OK(c1);
  const store::FdEntry* e = find_fd(*c1, fd);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->path, "/dev/null");
  EXPECT_EQ(c1->state.brk_current, c0->state.brk_current);
  EXPECT_EQ(c1->state.sigactions[SIGUSR1 - 1].handler, c0->state.sigactions[SIGUSR1 - 1].handler);

  f->capture->note_tracee_activity();  // then everything, as before
  auto c2 = f->capture->capture({f->tracee.pid()});
  ASSERT_OK(c2);
  EXPECT_EQ(c2->state.brk_current, c0->state.brk_current + 2 * 4096);
}

// Without CaptureOptions::activity_reported every capture re-reads everything.
TEST(Capture, UnreportedActivityIsAlwaysReread) {
  auto f = start(TrackerChoice::UffdWp);
  ASSERT_OK(f);
  ASSERT_OK(f->capture->capture({f->tracee.pid()}));
  const int fd = static_cast<int>(*f->tracee.command("O /dev/null"));
  auto c = f->capture->capture({f->tracee.pid()});
  ASSERT_OK(c);
  EXPECT_FALSE(f->capture->last_stats().state_reused);
  EXPECT_NE(find_fd(*c, fd), nullptr);
}

TEST(Capture, AutoPicksUffdWpHere) {
  auto f = start(TrackerChoice::Auto);
  ASSERT_OK(f);
  EXPECT_STREQ(f->capture->tracker_name(), "uffd-wp-async");
}

TEST(Capture, LeaderMustComeFirst) {
  auto f = start(TrackerChoice::UffdWp);
  ASSERT_OK(f);
  auto c = f->capture->capture({});
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().message, "capture: the thread group leader must come first");
}

TEST(Capture, RoundTripThroughTheStoreAndVerify) {
  char tmpl[] = "/tmp/slsdbg-capture-XXXXXX";
  const char* base = std::getenv("TMPDIR");
  std::string dir_template = std::string(base ? base : "/tmp") + "/slsdbg-capture-XXXXXX";
  std::vector<char> buf(dir_template.begin(), dir_template.end());
  buf.push_back(0);
  ASSERT_NE(mkdtemp(buf.data()), nullptr);
  (void)tmpl;
  std::string dir = std::string(buf.data()) + "/rec";
  struct Cleanup {
    std::string d;
    ~Cleanup() { std::filesystem::remove_all(std::filesystem::path(d).parent_path()); }
  } cleanup{dir};

  auto f = start(TrackerChoice::UffdWp);
  ASSERT_OK(f);
  store::RecordingMeta meta;
  meta.program = "capture_pages";
  meta.tracker = f->capture->tracker_name();
  auto writer = store::RecordingWriter::create(dir, meta);
  ASSERT_OK(writer);
  auto c0 = f->capture->capture({f->tracee.pid()});
  ASSERT_OK(c0);
  ASSERT_OK((*writer)->add_checkpoint(*c0, "start"));
  uint64_t a = *f->tracee.command("M 4");
  ASSERT_OK(f->tracee.command("B 3"));
  ASSERT_OK(f->tracee.command("W " + hex(a) + " 1 3c"));
  ASSERT_OK(f->capture->note_address_space_change());
  auto c1 = f->capture->capture({f->tracee.pid()});
  ASSERT_OK(c1);
  ASSERT_OK((*writer)->add_checkpoint(*c1, "tick"));
  auto reader = store::RecordingReader::open(dir);
  ASSERT_OK(reader);
  ASSERT_EQ((*reader)->checkpoints().size(), 2u);
  ASSERT_OK(f->capture->verify(**reader, CheckpointId(1)));
  // Checkpoint 0 does not match the present (pages changed since).
  EXPECT_FALSE(f->capture->verify(**reader, CheckpointId(0)).ok());
  // Read-back equals what the program wrote.
  std::vector<uint8_t> page(4096);
  ASSERT_OK((*reader)->read_memory(CheckpointId(1), a, page));
  EXPECT_TRUE(std::all_of(page.begin(), page.end(), [](uint8_t b) { return b == 0x3c; }));
  auto st = (*reader)->process_state(CheckpointId(1));
  ASSERT_OK(st);
  EXPECT_EQ(st->brk_current, c1->state.brk_current);
  // A byte changed behind the recorder's back: verify names the page.
  const uint8_t evil[] = {0x99};
  ASSERT_OK(f->tracee.task().write_memory(RemoteAddr(a + 2 * 4096 + 17), evil));
  auto v = f->capture->verify(**reader, CheckpointId(1));
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.error().message, "checkpoint 1: page " + hex_addr(a + 2 * 4096) + " differs from the live process");
}

// Deferred copies (uffd-wp only: the page-hash tracker cannot watch pages).
Result<Fixture> start_with(const CaptureOptions& options) {
  auto t = TRY(CommandTracee::start());
  TRY(t.command("G"));
  auto c = TRY(CheckpointCapture::create(t.pid(), TrackerChoice::UffdWp, options));
  return Fixture{std::move(t), std::move(c)};
}

bool page_filled(const store::CheckpointInput& in, uint64_t vaddr, uint8_t byte) {
  const uint8_t* d = page_data(in, vaddr);
  return d && std::all_of(d, d + 4096, [&](uint8_t b) { return b == byte; });
}

// A new 200-page mapping, taken by a first capture, then all of it written
// with 0x11: 200 cold pages for the next capture. Returns its address.
Result<uint64_t> write_200_tracked_pages(Fixture& f) {
  const uint64_t a = TRY(f.tracee.command("M 200"));
  TRY(f.capture->note_address_space_change());
  TRY(f.capture->capture({f.tracee.pid()}));
  TRY(f.tracee.command("W " + hex(a) + " 200 11"));
  return a;
}

TEST(DeferredCapture, ColdPagesArriveWithSettleAndMatchTheStop) {
  auto f = start_with({});
  ASSERT_OK(f);
  auto written = write_200_tracked_pages(*f);
  ASSERT_OK(written);
  const uint64_t a = *written;
  auto c = f->capture->capture_checkpoint({f->tracee.pid()}, CopyTiming::Deferred);
  ASSERT_OK(c);
  ASSERT_TRUE(c->deferred);
  const uint64_t deferred = f->capture->last_stats().deferred_pages;
  EXPECT_GT(deferred, 150u);  // all but the pages next to a register
  EXPECT_LT(dirty_in(c->input, a, a + 200 * 4096).size(), 200u);  // not there yet
  // Another capture before settling is refused.
  EXPECT_FALSE(f->capture->capture({f->tracee.pid()}).ok());
  auto exact = f->capture->settle(*c);
  ASSERT_OK(exact);
  EXPECT_TRUE(*exact);
  EXPECT_EQ(dirty_in(c->input, a, a + 200 * 4096), pages(a, 200));
  for (uint64_t p = a; p < a + 200 * 4096; p += 4096) EXPECT_TRUE(page_filled(c->input, p, 0x11)) << hex_addr(p);
  EXPECT_TRUE(std::is_sorted(c->input.dirty.begin(), c->input.dirty.end(),
                             [](const auto& x, const auto& y) { return x.vaddr < y.vaddr; }));
  // Small dirty sets are copied in the stop.
  ASSERT_OK(f->tracee.command("W " + hex(a) + " 3 12"));
  auto small = f->capture->capture_checkpoint({f->tracee.pid()}, CopyTiming::Deferred);
  ASSERT_OK(small);
  EXPECT_FALSE(small->deferred);
  EXPECT_TRUE(page_filled(small->input, a + 4096, 0x12));
}

TEST(DeferredCapture, APageWrittenBeforeItsCopyTearsTheCheckpointAndTheNextTakesItsPages) {
  CaptureOptions options;
  options.deferred_copy_delay_us_for_tests = 300'000;  // the tracee writes first
  auto f = start_with(options);
  ASSERT_OK(f);
  auto written = write_200_tracked_pages(*f);
  ASSERT_OK(written);
  const uint64_t a = *written;
  auto torn = f->capture->capture_checkpoint({f->tracee.pid()}, CopyTiming::Deferred);
  ASSERT_OK(torn);
  ASSERT_TRUE(torn->deferred);
  ASSERT_OK(f->tracee.command("W " + hex(a + 5 * 4096) + " 1 22"));  // before the copy
  auto exact = f->capture->settle(*torn);
  ASSERT_OK(exact);
  EXPECT_FALSE(*exact);
  // The next capture holds all 200 pages (none was written again but page
  // 5), each with its present bytes, as if the torn one had not been taken.
  auto next = f->capture->capture_checkpoint({f->tracee.pid()}, CopyTiming::InStop);
  ASSERT_OK(next);
  EXPECT_FALSE(next->deferred);
  EXPECT_EQ(dirty_in(next->input, a, a + 200 * 4096), pages(a, 200));
  EXPECT_TRUE(page_filled(next->input, a + 5 * 4096, 0x22));
  EXPECT_TRUE(page_filled(next->input, a + 100 * 4096, 0x11));
}

}  // namespace
}  // namespace slsdbg::recorder
