// decode_function keeps what it decoded (code_function.cc): a second call
// for a pc in the same function reads the function's bytes once and gives
// the same instructions; once a byte differs (a breakpoint's, another
// program at that address), it decodes again.
#include "engine/replay/code_function.h"

#include <gtest/gtest.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cstring>
#include <map>

extern "C" __attribute__((noinline)) int slsdbg_code_function_sample(int x) {
  int s = 0;
  for (int i = 0; i < x; i++) s += i * x;
  return s;
}

namespace slsdbg::replay {
namespace {

struct CountingReader {
  int reads = 0;
  std::map<uint64_t, uint8_t> changed;  // bytes that read differently from our memory
  CodeReader reader() {
    return [this](uint64_t addr, std::span<uint8_t> out) {
      reads++;
      iovec local{out.data(), out.size()};
      iovec remote{reinterpret_cast<void*>(addr), out.size()};
      if (process_vm_readv(getpid(), &local, 1, &remote, 1, 0) != static_cast<ssize_t>(out.size())) return false;
      for (auto& [a, b] : changed)
        if (a >= addr && a < addr + out.size()) out[a - addr] = b;
      return true;
    };
  }
};

TEST(CodeFunction, ASecondDecodeReadsTheFunctionOnce) {
  const uint64_t pc = reinterpret_cast<uint64_t>(&slsdbg_code_function_sample);
  CountingReader mem;
  Result<DecodedFunction> first = decode_function(pc, mem.reader());
  ASSERT_TRUE(first.ok()) << first.error().message;
  ASSERT_GT(mem.reads, 3) << "the first decode searches .eh_frame_hdr";
  mem.reads = 0;
  Result<DecodedFunction> again = decode_function(pc, mem.reader());
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_EQ(mem.reads, 1);
  ASSERT_EQ(again->insns.size(), first->insns.size());
  EXPECT_EQ(again->range.start, first->range.start);
  EXPECT_EQ(again->range.end, first->range.end);
  // An int3 over its ret: decoded again, not kept.
  uint64_t ret = 0;
  for (const DecodedFunction::Insn& i : first->insns)
    if (i.is_ret && i.size == 1) ret = i.at;
  ASSERT_NE(ret, 0u) << "the sample ends in a one-byte ret";
  mem.changed[ret] = 0xcc;
  mem.reads = 0;
  Result<DecodedFunction> other = decode_function(pc, mem.reader());
  ASSERT_TRUE(other.ok()) << other.error().message;
  EXPECT_GT(mem.reads, 1);
  ASSERT_NE(other->at(ret), nullptr);
  EXPECT_TRUE(other->at(ret)->int3);
}

}  // namespace
}  // namespace slsdbg::replay
