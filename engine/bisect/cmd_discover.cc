#include "engine/bisect/cmd_discover.h"

#include <sys/mman.h>

#include <algorithm>
#include <chrono>
#include <cstring>

#include "engine/bisect/overlay_memory.h"
#include "engine/bisect/subset_search.h"
#include "engine/dump/recording_memory.h"

namespace slsdbg::bisect {
namespace {

constexpr uint64_t kWord = 8;

std::string hex(uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

struct Region {
  uint64_t start = 0, end = 0;
  std::string name;  // "bisect_bank data", "[heap]"
};

std::string base_name(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// The program's writable data, then its heap, as mapped at the last good checkpoint.
std::vector<Region> data_regions(const store::ProcessState& state) {
  std::vector<Region> data, heap;
  const auto& maps = state.mappings;
  for (size_t i = 0; i < maps.size(); i++) {
    const auto& m = maps[i];
    bool writable = (m.prot & PROT_WRITE) != 0;
    if (m.path == "[heap]" || (m.flags & store::flag(store::MappingFlags::Heap))) {
      heap.push_back({m.start, m.end, "[heap]"});
    } else if (writable && !state.exe.empty() && m.path == state.exe) {
      Region r{m.start, m.end, base_name(m.path) + " data"};
      // .bss past the file's last page: the anonymous mapping right after.
      if (i + 1 < maps.size()) {
        const auto& next = maps[i + 1];
        if (next.start == m.end && next.path.empty() && (next.prot & PROT_WRITE) &&
            !(next.flags & (store::flag(store::MappingFlags::Stack) | store::flag(store::MappingFlags::Heap))))
          r.end = next.end;
      }
      data.push_back(r);
    }
  }
  data.insert(data.end(), heap.begin(), heap.end());
  return data;
}

struct ChangedWord {
  size_t region = 0;
  uint64_t addr = 0;
  uint8_t before[kWord] = {};  // at the last good checkpoint
  uint8_t after[kWord] = {};   // at the first bad checkpoint
};

// The words of `regions` that differ between the two checkpoints. Only the
// first bad checkpoint's dirty pages can differ from the last good one.
Result<std::vector<ChangedWord>> changed_words(const DiscoverInput& in, const std::vector<Region>& regions) {
  std::vector<ChangedWord> out;
  std::vector<uint8_t> before;
  TRY(in.reader->for_each_dirty_page(
      CheckpointId(in.first_bad), [&](uint64_t vaddr, std::span<const uint8_t> page) -> Status {
        for (size_t ri = 0; ri < regions.size(); ri++) {
          uint64_t lo = std::max(vaddr, regions[ri].start), hi = std::min(vaddr + page.size(), regions[ri].end);
          lo = (lo + kWord - 1) & ~(kWord - 1);
          if (lo >= hi) continue;
          before.resize(hi - lo);
          TRY(in.reader->read_memory(CheckpointId(in.last_good), lo, before));
          for (uint64_t a = lo; a + kWord <= hi; a += kWord) {
            const uint8_t* now = page.data() + (a - vaddr);
            if (std::memcmp(now, before.data() + (a - lo), kWord) == 0) continue;
            ChangedWord w;
            w.region = ri;
            w.addr = a;
            std::memcpy(w.before, before.data() + (a - lo), kWord);
            std::memcpy(w.after, now, kWord);
            out.push_back(w);
          }
        }
        return ok_status();
      }));
  std::stable_sort(out.begin(), out.end(), [](const ChangedWord& a, const ChangedWord& b) {
    return a.region != b.region ? a.region < b.region : a.addr < b.addr;
  });
  return out;
}

std::string word_name(const DiscoverInput& in, const std::vector<Region>& regions, const ChangedWord& w) {
  if (in.symbols) {
    std::string name = in.symbols->name_at(w.addr);
    if (!name.empty()) return name;
  }
  const Region& r = regions[w.region];
  return r.name + "+" + hex(w.addr - r.start);
}

std::string list(const std::vector<std::string>& words) {
  std::string s;
  for (const auto& w : words) s += (s.empty() ? "" : ", ") + w;
  return s;
}

}  // namespace

Result<DiscoverOutcome> discover_cmd_reads(const DiscoverInput& in) {
  auto started = std::chrono::steady_clock::now();
  DiscoverOutcome out;
  Discovered& info = out.info;
  std::vector<Region> regions = data_regions(*in.last_good_state);
  for (const auto& r : regions) info.regions.push_back(r.name + " " + hex(r.start) + "-" + hex(r.end));
  std::vector<ChangedWord> words = TRY_CTX(changed_words(in, regions), "comparing checkpoints " +
                                               std::to_string(in.last_good) + " and " + std::to_string(in.first_bad));
  info.changed_words = words.size();
  if (words.size() > kMaxCandidates) words.resize(kMaxCandidates);
  info.candidates = words.size();
  std::string pair = "checkpoints " + std::to_string(in.last_good) + " and " + std::to_string(in.first_bad);
  std::string changed = std::to_string(info.changed_words) + " 8-byte words that changed in the program's data and heap between " + pair;
  if (info.candidates < info.changed_words) changed += " (the first " + std::to_string(info.candidates) + " tried)";

  // A subset explains the flip when it carries it both ways: the last good
  // core with the subset's first-bad values is bad, and the first bad core
  // with the subset's last-good values is good. One way only is not enough:
  // with `a` and `b` moved together, patching `a` alone into the last good
  // core breaks a + b == const, yet reverting `a` alone does not mend the
  // first bad core; watching `a` alone would stop at the wrong write.
  store::ProcessState first_bad_state = TRY(in.reader->process_state(CheckpointId(in.first_bad)));
  dump::RecordingMemory good_memory(*in.reader, CheckpointId(in.last_good));
  dump::RecordingMemory bad_memory(*in.reader, CheckpointId(in.first_bad));
  enum class Base { LastGood, FirstBad };
  auto judge = [&](const std::vector<size_t>& subset, Base base) -> Result<Verdict> {
    if (in.interrupted && in.interrupted()) return Error::msg("interrupted (SIGINT/SIGTERM)");
    bool good = base == Base::LastGood;
    std::vector<MemoryRange> ranges;
    std::vector<uint8_t> bytes;
    for (size_t i : subset) {
      ranges.push_back({words[i].addr, kWord, ""});
      const uint8_t* value = good ? words[i].after : words[i].before;
      bytes.insert(bytes.end(), value, value + kWord);
    }
    OverlayMemory memory(good ? static_cast<dump::MemorySource&>(good_memory) : bad_memory, ranges, bytes);
    std::string where = "checkpoint " + std::to_string(good ? in.last_good : in.first_bad) + " with " +
                        std::to_string(subset.size()) + " of the " + std::to_string(words.size()) +
                        " changed words as checkpoint " + std::to_string(good ? in.first_bad : in.last_good) + " has them";
    info.probes++;
    Evaluation e = TRY(in.invariant->evaluate(StateView{good ? in.last_good_state : &first_bad_state, &memory, where}));
    if (in.progress)
      in.progress("discovering what the command reads: run " + std::to_string(info.probes) + ", " + where + " -> " +
                  (e.verdict == Verdict::Good ? "good" : "bad"));
    return e.verdict;
  };
  std::string all_patched;  // what the first probe (every word) saw, when it did not explain the flip
  SubsetProbe probe = [&](const std::vector<size_t>& subset) -> Result<bool> {
    bool first = info.probes == 0;
    if (TRY(judge(subset, Base::LastGood)) == Verdict::Good) {
      if (first) all_patched = "checkpoint " + std::to_string(in.last_good) + "'s core is still good";
      return false;
    }
    if (TRY(judge(subset, Base::FirstBad)) == Verdict::Bad) {
      if (first) all_patched = "checkpoint " + std::to_string(in.first_bad) + "'s core is still bad";
      return false;
    }
    return true;
  };
  SubsetSearch found = TRY_CTX(find_flipping_subset(words.size(), in.max_words, probe),
                               "discovering what the command reads");
  std::vector<std::string> names;
  for (size_t i : found.subset) names.push_back(word_name(in, regions, words[i]) + " (" + hex(words[i].addr) + ")");
  info.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  switch (found.outcome) {
    case SubsetOutcome::None:
      info.outcome = "none";
      out.watch.unknown_because =
          info.changed_words == 0
              ? "no 8-byte word of the program's data or heap changed between " + pair +
                    ", so the command's verdict depends on something else (registers, stack, other memory)"
              : "no subset of the " + changed + " carries the command's verdict from checkpoint " +
                    std::to_string(in.last_good) + " to " + std::to_string(in.first_bad) +
                    " (with all of them patched in, " + all_patched +
                    "), so its verdict depends on something else (registers, stack, other memory)";
      return out;
    case SubsetOutcome::TooMany:
      info.outcome = "too_many";
      info.words = names;
      out.watch.unknown_because = "the command's verdict depends on at least " + std::to_string(names.size()) + " of the " +
                                  changed + " (" + list(names) + "); the replay watches " +
                                  std::to_string(in.max_words) + " 8-byte words";
      return out;
    case SubsetOutcome::Found: break;
  }
  info.outcome = "found";
  info.words = names;
  for (size_t i : found.subset) out.watch.ranges.push_back({words[i].addr, kWord, word_name(in, regions, words[i])});
  return out;
}

}  // namespace slsdbg::bisect
