// store_bench: ingest throughput of 4 KiB pages (a mix of new, repeated and
// zero pages) through RecordingWriter::add_checkpoint, per-checkpoint cost,
// and random page-read latency at two checkpoint counts. Prints one JSON
// object. Not run by ctest; see bench/store/run.sh and docs/performance.md.
//
//   store_bench DIR [--ingest-mib N] [--pages-per-checkpoint N] [--read-checkpoints A,B] [--reads N]
#include <time.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "store/recording.h"

using namespace slsdbg;
using namespace slsdbg::store;

namespace {

double now_s() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

void fill(uint64_t id, uint8_t* out) {
  uint64_t x = id * 0x9E3779B97F4A7C15ull + 1;
  auto* w = reinterpret_cast<uint64_t*>(out);
  for (size_t i = 0; i < kPageSize / 8; i++) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    w[i] = x;
  }
}

double percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, size_t(p * double(v.size())))];
}

struct Ingest {
  double seconds = 0;
  uint64_t pages = 0, checkpoints = 0;
  std::vector<double> per_checkpoint_ms;
  WriterStats stats;
};

// Pages: 60% new content, 25% repeats of 64 hot pages, 15% zero; addresses
// in runs of 1-32 contiguous pages over 1 GiB (heap/stack-like locality).
Result<Ingest> run_ingest(const std::string& dir, uint64_t total_pages, uint64_t per_checkpoint) {
  std::mt19937_64 rng(1);
  std::vector<uint8_t> data(per_checkpoint * kPageSize);
  auto w = TRY(RecordingWriter::create(dir, RecordingMeta{}));
  Ingest out;
  uint64_t next_new = 1000;
  const uint64_t space = 1ull << 18;  // pages of address space touched
  while (out.pages < total_pages) {
    CheckpointInput in;
    uint64_t run_left = 0, vpn = 0;
    for (uint64_t i = 0; i < per_checkpoint; i++) {
      if (run_left == 0) {
        run_left = 1 + rng() % 32;
        vpn = rng() % space;
      }
      run_left--;
      vpn = (vpn + 1) % space;
      uint64_t r = rng() % 100;
      uint8_t* p = data.data() + i * kPageSize;
      if (r < 15) std::memset(p, 0, kPageSize);
      else if (r < 40) fill(1 + rng() % 64, p);
      else fill(next_new++, p);
      in.dirty.push_back(DirtyPage{0x10000000 + vpn * kPageSize, p});
    }
    double t0 = now_s();
    TRY(w->add_checkpoint(in, "tick"));
    double dt = now_s() - t0;
    out.seconds += dt;
    out.per_checkpoint_ms.push_back(dt * 1e3);
    out.pages += per_checkpoint;
    out.checkpoints++;
  }
  out.stats = w->stats();
  TRY(w->finish());
  return out;
}

struct ReadLatency {
  uint64_t checkpoints = 0;
  double mean_us = 0, p50_us = 0, p99_us = 0;
  double open_ms = 0;  // RecordingReader::open (catalog check + listing)
  uint64_t catalog_bytes = 0;
};

// A recording of N checkpoints, each changing 8 of 16384 pages; then random
// 4 KiB reads at random checkpoints (page cache warm after a first pass).
Result<ReadLatency> run_reads(const std::string& dir, uint64_t checkpoints, uint64_t reads) {
  std::mt19937_64 rng(2);
  const uint64_t space = 16384;
  {
    auto w = TRY(RecordingWriter::create(dir, RecordingMeta{}));
    std::vector<uint8_t> data(space * kPageSize);
    CheckpointInput first;
    for (uint64_t i = 0; i < space; i++) {
      fill(i + 1, data.data() + i * kPageSize);
      first.dirty.push_back(DirtyPage{0x10000000 + i * kPageSize, data.data() + i * kPageSize});
    }
    TRY(w->add_checkpoint(first, "start"));
    std::vector<uint8_t> small(8 * kPageSize);
    for (uint64_t k = 1; k < checkpoints; k++) {
      CheckpointInput in;
      for (int i = 0; i < 8; i++) {
        fill(1'000'000 + k * 8 + uint64_t(i), small.data() + i * kPageSize);
        in.dirty.push_back(DirtyPage{0x10000000 + (rng() % space) * kPageSize, small.data() + i * kPageSize});
      }
      TRY(w->add_checkpoint(in, "tick"));
    }
    TRY(w->finish());
  }
  double t_open = now_s();
  auto r = TRY(RecordingReader::open(dir));
  double open_ms = (now_s() - t_open) * 1e3;
  std::vector<uint8_t> buf(kPageSize);
  std::vector<double> us;
  us.reserve(reads);
  for (int pass = 0; pass < 2; pass++) {
    us.clear();
    std::mt19937_64 pick(3);
    for (uint64_t i = 0; i < reads; i++) {
      CheckpointId k(pick() % checkpoints);
      uint64_t addr = 0x10000000 + (pick() % space) * kPageSize;
      double t0 = now_s();
      TRY(r->read_memory(k, addr, buf));
      us.push_back((now_s() - t0) * 1e6);
    }
  }
  ReadLatency out;
  out.checkpoints = checkpoints;
  out.open_ms = open_ms;
  out.catalog_bytes = std::filesystem::file_size(dir + "/catalog.db");
  double sum = 0;
  for (double v : us) sum += v;
  out.mean_us = sum / double(us.size());
  out.p50_us = percentile(us, 0.5);
  out.p99_us = percentile(us, 0.99);
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: store_bench DIR [--ingest-mib N] [--pages-per-checkpoint N] [--read-checkpoints A,B] [--reads N]\n");
    return 2;
  }
  std::string dir = argv[1];
  uint64_t ingest_mib = 1024, per_checkpoint = 1000, reads = 20000;
  std::vector<uint64_t> read_counts = {10, 10000};
  for (int i = 2; i + 1 < argc; i += 2) {
    std::string a = argv[i], v = argv[i + 1];
    if (a == "--ingest-mib") ingest_mib = std::stoull(v);
    else if (a == "--pages-per-checkpoint") per_checkpoint = std::stoull(v);
    else if (a == "--reads") reads = std::stoull(v);
    else if (a == "--read-checkpoints") {
      read_counts.clear();
      size_t pos = 0;
      while (pos < v.size()) {
        size_t c = v.find(',', pos);
        read_counts.push_back(std::stoull(v.substr(pos, c - pos)));
        pos = c == std::string::npos ? v.size() : c + 1;
      }
    } else {
      std::fprintf(stderr, "store_bench: unknown option %s\n", a.c_str());
      return 2;
    }
  }
  std::filesystem::create_directories(dir);
  std::filesystem::remove_all(dir + "/ingest");
  auto ing = run_ingest(dir + "/ingest", ingest_mib * 256, per_checkpoint);
  if (!ing.ok()) {
    std::fprintf(stderr, "store_bench: ingest: %s\n", ing.error().message.c_str());
    return 1;
  }
  std::filesystem::remove_all(dir + "/ingest");
  std::printf("{\n  \"ingest\": {\"pages\": %llu, \"checkpoints\": %llu, \"pages_per_checkpoint\": %llu, \"seconds\": %.3f, "
              "\"gb_per_s\": %.3f, \"checkpoint_ms_p50\": %.3f, \"checkpoint_ms_p99\": %.3f, "
              "\"zero_pages\": %llu, \"dedup_pages\": %llu, \"blocks_written\": %llu, \"tree_nodes_written\": %llu},\n",
              (unsigned long long)ing->pages, (unsigned long long)ing->checkpoints, (unsigned long long)per_checkpoint, ing->seconds,
              double(ing->pages * kPageSize) / ing->seconds / 1e9, percentile(ing->per_checkpoint_ms, 0.5),
              percentile(ing->per_checkpoint_ms, 0.99), (unsigned long long)ing->stats.zero_pages,
              (unsigned long long)ing->stats.dedup_pages, (unsigned long long)ing->stats.blocks_written,
              (unsigned long long)ing->stats.tree_nodes_written);
  std::printf("  \"random_read\": [");
  for (size_t i = 0; i < read_counts.size(); i++) {
    std::string sub = dir + "/read" + std::to_string(read_counts[i]);
    std::filesystem::remove_all(sub);
    auto rl = run_reads(sub, read_counts[i], reads);
    std::filesystem::remove_all(sub);
    if (!rl.ok()) {
      std::fprintf(stderr, "store_bench: reads: %s\n", rl.error().message.c_str());
      return 1;
    }
    std::printf("%s\n    {\"checkpoints\": %llu, \"reads\": %llu, \"mean_us\": %.2f, \"p50_us\": %.2f, \"p99_us\": %.2f, "
                "\"open_ms\": %.1f, \"catalog_bytes\": %llu}",
                i ? "," : "", (unsigned long long)rl->checkpoints, (unsigned long long)reads, rl->mean_us, rl->p50_us, rl->p99_us,
                rl->open_ms, (unsigned long long)rl->catalog_bytes);
  }
  std::printf("\n  ]\n}\n");
  return 0;
}
