// Two pages of the test process for running a patched function in place:
// its code in the first, the stub its jump goes to in the second, both
// writable and executable; unmapped when the object goes.
#pragma once

#include <sys/mman.h>

#include <cstdint>
#include <cstring>
#include <vector>

namespace slsdbg::replay::testing {

class CodePages {
 public:
  CodePages() : mem_(mmap(nullptr, 2 * kPage, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)) {}
  ~CodePages() {
    if (ok()) munmap(mem_, 2 * kPage);
  }
  CodePages(const CodePages&) = delete;
  CodePages& operator=(const CodePages&) = delete;

  bool ok() const { return mem_ != MAP_FAILED; }
  uint8_t* code() const { return static_cast<uint8_t*>(mem_); }
  uint64_t base() const { return reinterpret_cast<uint64_t>(mem_); }
  uint64_t stub() const { return base() + kPage; }
  void place_stub(const std::vector<uint8_t>& bytes) { std::memcpy(reinterpret_cast<void*>(stub()), bytes.data(), bytes.size()); }
  // A `jmp rel32` to the stub over the 5 bytes at offset `at` of the code.
  void jump_to_stub(uint64_t at) {
    code()[at] = 0xe9;
    const int32_t rel = static_cast<int32_t>(static_cast<int64_t>(stub() - (base() + at + 5)));
    std::memcpy(code() + at + 1, &rel, 4);
  }
  // A word of the stub page (its counter, its limit).
  uint64_t stub_word(uint64_t offset) const {
    uint64_t v = 0;
    std::memcpy(&v, reinterpret_cast<const void*>(stub() + offset), 8);
    return v;
  }

 private:
  static constexpr uint64_t kPage = 4096;
  void* mem_;
};

}  // namespace slsdbg::replay::testing
