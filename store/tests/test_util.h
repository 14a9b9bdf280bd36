// Helpers shared by the store tests: temporary recording directories and a
// deterministic model address space whose page contents derive from ids.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "store/recording.h"

namespace slsdbg::store::testing {

class TempDir {
 public:
  TempDir() {
    const char* base = getenv("TMPDIR");
    std::string tmpl = std::string(base && *base ? base : "/tmp") + "/slsdbg-store-XXXXXX";
    std::vector<char> buf(tmpl.begin(), tmpl.end());
    buf.push_back('\0');
    path_ = mkdtemp(buf.data());
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  const std::string& path() const { return path_; }
  std::string rec() const { return path_ + "/rec"; }

 private:
  std::string path_;
};

// Content id 0 is the zero page; any other id fills the page with a
// pseudo-random pattern derived from the id.
inline void fill_page(uint64_t id, uint8_t* out) {
  if (id == 0) {
    std::memset(out, 0, kPageSize);
    return;
  }
  uint64_t x = id * 0x9E3779B97F4A7C15ull;
  auto* w = reinterpret_cast<uint64_t*>(out);
  for (size_t i = 0; i < kPageSize / 8; i++) {
    x += 0x9E3779B97F4A7C15ull;
    uint64_t z = x;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    w[i] = z ^ (z >> 31);
  }
}

struct Region {
  uint64_t start;
  uint64_t pages;
};

// The model: the content id of every page of a few regions, per checkpoint.
class Model {
 public:
  explicit Model(uint64_t seed) : rng_(seed) {
    regions_ = {{0x400000, 96}, {0x10000000, 300}, {0x7ff000000000 - 200 * kPageSize, 200}, {0x7f1234560000, 40}};
    for (const auto& r : regions_) pages_ += r.pages;
    current_.assign(pages_, 0);
  }
  const std::vector<Region>& regions() const { return regions_; }
  uint64_t page_count() const { return pages_; }
  uint64_t vaddr(uint64_t index) const {
    for (const auto& r : regions_) {
      if (index < r.pages) return r.start + index * kPageSize;
      index -= r.pages;
    }
    return 0;
  }

  // The next checkpoint's input (checkpoint 0: every nonzero page). Page data
  // lives in `storage` until the next call.
  CheckpointInput next(uint64_t k, std::vector<uint8_t>& storage, uint32_t max_dirty = 40) {
    CheckpointInput in;
    in.time_ns = k * 1000;
    in.stop_ns = k;
    in.state.pid = int32_t(1000 + k);
    in.state.exe = "/bin/model";
    in.state.cmdline = {"model", std::to_string(k)};
    std::vector<std::pair<uint64_t, uint64_t>> dirty;  // index, content id
    if (k == 0) {
      for (uint64_t i = 0; i < pages_; i++)
        if (rng_() % 3) dirty.push_back({i, new_content()});
    } else {
      if (rng_() % 20 == 0) {  // clear part of one region
        const Region& r = regions_[rng_() % regions_.size()];
        uint64_t a = rng_() % r.pages, b = a + 1 + rng_() % (r.pages - a);
        in.cleared.push_back({r.start + a * kPageSize, r.start + b * kPageSize});
        uint64_t base = index_of(r.start);
        for (uint64_t i = a; i < b; i++) current_[base + i] = 0;
      }
      uint32_t n = 1 + uint32_t(rng_() % max_dirty);
      for (uint32_t j = 0; j < n; j++) dirty.push_back({rng_() % pages_, new_content()});
    }
    storage.resize(dirty.size() * kPageSize);
    for (size_t j = 0; j < dirty.size(); j++) {
      current_[dirty[j].first] = dirty[j].second;
      fill_page(dirty[j].second, storage.data() + j * kPageSize);
      in.dirty.push_back(DirtyPage{vaddr(dirty[j].first), storage.data() + j * kPageSize});
    }
    history_.push_back(current_);
    return in;
  }
  const std::vector<uint64_t>& at(uint64_t k) const { return history_[k]; }

 private:
  uint64_t new_content() {
    uint64_t r = rng_() % 10;
    if (r == 0) return 0;                   // zero page
    if (r <= 3) return 1 + rng_() % 8;      // one of a few repeated pages
    return 1000 + next_unique_++;           // new content
  }
  uint64_t index_of(uint64_t start) const {
    uint64_t i = 0;
    for (const auto& r : regions_) {
      if (r.start == start) return i;
      i += r.pages;
    }
    return i;
  }

  std::mt19937_64 rng_;
  std::vector<Region> regions_;
  uint64_t pages_ = 0;
  uint64_t next_unique_ = 0;
  std::vector<uint64_t> current_;
  std::vector<std::vector<uint64_t>> history_;
};

// Compares every page of checkpoint k with the model; "" when equal.
inline std::string compare_checkpoint(const RecordingReader& r, const Model& model, uint64_t k) {
  std::vector<uint8_t> got, want(kPageSize);
  uint64_t index = 0;
  for (const auto& reg : model.regions()) {
    got.resize(reg.pages * kPageSize);
    auto st = r.read_memory(CheckpointId(k), reg.start, got);
    if (!st.ok()) return "read_memory failed: " + st.error().message;
    for (uint64_t p = 0; p < reg.pages; p++, index++) {
      fill_page(model.at(k)[index], want.data());
      if (std::memcmp(got.data() + p * kPageSize, want.data(), kPageSize) != 0)
        return "checkpoint " + std::to_string(k) + " page " + std::to_string(reg.start + p * kPageSize) + " differs";
    }
  }
  return "";
}

inline RecordingMeta test_meta() {
  RecordingMeta m;
  m.program = "/bin/model";
  m.args = {"model", "--flag"};
  m.env = {"A=1", "B=two"};
  m.cwd = "/tmp";
  m.cpuid = {1, 2, 3, 4};
  m.tracker = "page-hash";
  m.interval_ns = 5'000'000;
  m.created_unix_ns = 1234567890;
  return m;
}

}  // namespace slsdbg::store::testing

namespace slsdbg::store::testing {
inline bool path_exists_for_test(const std::string& p) { return ::access(p.c_str(), F_OK) == 0; }
}  // namespace slsdbg::store::testing
