// The memory image of a checkpoint: a persistent copy-on-write radix tree
// from virtual page number to data block (docs/formats/tree.md).
//
// Checkpoint k's tree differs from k-1's only along the paths to pages that
// changed; every other subtree is the very same block on disk:
//
//   catalog rows:      ckpt 0        ckpt 1        ckpt 2
//                        |             |             |
//   level 0 (root)     [R0]          [R1]          [R2]        VPN bits 35..32
//                      /  \          /  \          /  \        children
//   levels 1..3     [A0]  [B0]    [A1]   |      [A1]  [B2]     8 VPN bits each
//                     |     ^------------'        |     |
//   level 4 (leaf)  [L0]   ...    [L1]           ...   ...     VPN bits 7..0
//                   /  \          /  \       entries
//   data blocks   p0    p1       p0'  |
//                        ^------------'
//
//   ckpt 1 changed one page: it wrote p0', a new leaf L1, a new A1 and a new
//   root R1; B0's whole subtree and block p1 are shared with ckpt 0. ckpt 2
//   changed a page under B only, so it shares A1 (and all below) with ckpt 1.
//
// A node is one 4 KiB block of 256 entries {u64 block ref, u64 checksum}; an
// entry of zeros is an empty subtree / a zero page. The checksum of a node or
// data block lives in the entry that points to it (the root's in the catalog),
// so any flipped byte below the root is caught on the way down, and a lookup
// reads exactly kTreeLevels nodes whatever the number of checkpoints.
//
// The writer keeps the latest tree in memory (PageTreeBuilder), mutates it in
// place and writes only the nodes it touched; the older versions stay on disk
// untouched, which is what makes the tree persistent.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "common/result.h"
#include "store/extent_reader.h"
#include "store/format.h"

namespace slsdbg::store {

struct TreeEntry {
  BlockRef ref = kNoBlock;
  uint64_t checksum = 0;
  bool empty() const { return ref == kNoBlock; }
  bool operator==(const TreeEntry&) const = default;
};
static_assert(sizeof(TreeEntry) == 16);
using NodeEntries = std::array<TreeEntry, kFanout>;
static_assert(sizeof(NodeEntries) == kBlockSize);

inline int tree_index(uint64_t vpn, int level) { return int((vpn >> (kFanoutBits * (kTreeLevels - 1 - level))) & (kFanout - 1)); }

class ExtentWriter;

// Writer side: the latest tree, in memory.
class PageTreeBuilder {
 public:
  PageTreeBuilder();
  ~PageTreeBuilder();

  void set(uint64_t vpn, TreeEntry data);                 // empty entry = zero page
  void clear(uint64_t first_vpn, uint64_t end_vpn);       // [first, end) become zero
  // Writes every node changed since the last commit; returns the new root.
  Result<TreeEntry> commit(ExtentWriter& out);
  TreeEntry root() const;

 private:
  struct Node;
  void clear_in(Node& node, int level, uint64_t base, uint64_t first, uint64_t end);
  Result<TreeEntry> commit_node(Node& node, int level, ExtentWriter& out);
  std::unique_ptr<Node> root_;
};

// Reader side: nodes are read in place from the extent mappings; a small set
// remembers which (block, checksum, level) were already verified so hot paths
// are not re-hashed. Lookups cost kTreeLevels node visits whatever the number
// of checkpoints; a cold visit costs one xxh3 of 4 KiB.
class PageTreeReader {
 public:
  explicit PageTreeReader(const ExtentReader& extents) : extents_(extents) {}

  // The data entry for VPN under ROOT (empty: zero page). Errors name the block.
  Result<TreeEntry> lookup(TreeEntry root, uint64_t vpn) const;
  // Reads and verifies a data block.
  Status read_data(TreeEntry entry, uint8_t* out) const;
  // Visits every node and data block reachable from ROOT once; subtrees whose
  // node ref is already in `seen_nodes` are skipped (shared subtrees).
  Status walk(TreeEntry root, std::unordered_set<BlockRef>& seen_nodes,
              const std::function<void(BlockRef data)>& on_data) const;

 private:
  Result<const NodeEntries*> node(TreeEntry entry, int level) const;
  Status walk_node(TreeEntry entry, int level, std::unordered_set<BlockRef>& seen,
                   const std::function<void(BlockRef)>& on_data) const;

  const ExtentReader& extents_;
  struct Verified {
    uint64_t checksum;
    int level;
  };
  mutable std::mutex mu_;
  mutable std::unordered_map<BlockRef, Verified> verified_;
};

}  // namespace slsdbg::store
