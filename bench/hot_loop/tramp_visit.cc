// What one visit of a patched pc costs in a tight loop, in this process (no
// ptrace): the loop body (imul, add, dec, jnz: ~1.4 ns) runs plain, then
// with the patched breakpoint's trampoline at the imul (a target no visit
// matches), then with the counter stub there. Thread CPU time, so the
// numbers hold on a loaded machine. Built and run by tramp_visit.sh.
#include <sys/mman.h>
#include <time.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "engine/replay/counting_patch.h"
#include "engine/replay/patched_breakpoint.h"

using namespace slsdbg::replay;

namespace {

double cpu_now() {
  timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

// long loop(long n): mov eax, 1; movabs rdx, C; mov ecx, 7;
// L (offset 20): imul rax, rdx; add rax, rcx; dec rdi; jnz L; ret
const std::vector<uint8_t> kLoop = {0xb8, 1,    0,    0,    0,    0x48, 0xba, 0x2d, 0x7f, 0x95, 0x4c,
                                    0x2d, 0xf4, 0x51, 0x58, 0xb9, 7,    0,    0,    0,    0x48, 0x0f,
                                    0xaf, 0xc2, 0x48, 0x01, 0xc8, 0x48, 0xff, 0xcf, 0x75, 0xf4, 0xc3};
constexpr uint64_t kPcOffset = 20;

}  // namespace

int main(int argc, char** argv) {
  const long n = argc > 1 ? std::atol(argv[1]) : 100'000'000;
  auto* m = static_cast<uint8_t*>(
      mmap(nullptr, 2 * 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  if (m == MAP_FAILED) return 1;
  const uint64_t pc = reinterpret_cast<uint64_t>(m) + kPcOffset, page = reinterpret_cast<uint64_t>(m) + 4096;
  auto loop = reinterpret_cast<long (*)(long)>(m);
  std::memcpy(m, kLoop.data(), kLoop.size());
  const std::vector<uint8_t> code(m + kPcOffset, m + kPcOffset + 32);
  auto timed = [&] {
    const double t0 = cpu_now();
    loop(n);
    return (cpu_now() - t0) / static_cast<double>(n) * 1e9;
  };
  auto jump_to = [&](const std::vector<uint8_t>& bytes, uint64_t displaced) {
    std::memcpy(m, kLoop.data(), kLoop.size());
    std::memcpy(reinterpret_cast<void*>(page), bytes.data(), bytes.size());
    m[kPcOffset] = 0xe9;
    const int32_t rel = static_cast<int32_t>(static_cast<int64_t>(page - (pc + 5)));
    std::memcpy(m + kPcOffset + 1, &rel, 4);
    for (uint64_t i = 5; i < displaced; i++) m[kPcOffset + i] = 0xcc;
  };
  const double plain = timed();
  user_regs_struct target{};
  target.rip = pc;
  target.rsp = 0x10;  // never matched
  auto t = build_trampoline(code, target, PatchCompare::All, page);
  auto s = build_counter_stub(code, pc, page);
  if (!t.ok() || !s.ok()) return std::fprintf(stderr, "tramp_visit: the loop cannot be patched\n"), 1;
  jump_to(t->bytes, t->displaced);
  const double patched = timed();
  jump_to(s->bytes, s->displaced);
  const double counted = timed();
  std::printf("{\"visits\": %ld, \"plain_ns\": %.2f, \"patched_breakpoint_ns\": %.2f, \"counter_stub_ns\": %.2f}\n", n,
              plain, patched, counted);
  return 0;
}
