// Copy-on-write radix tree (see page_tree.h for the picture).
#include "store/page_tree.h"

#include <cstring>

#include "store/extent_writer.h"

namespace slsdbg::store {

namespace {
constexpr size_t kVerifiedLimit = 1 << 20;  // remembered verified nodes, then start over
}

// In-memory node: the persisted entries plus, for inner nodes, the children.
// `self` is this node's entry in its parent as of the last commit.
struct PageTreeBuilder::Node {
  explicit Node(bool inner) {
    if (inner) children = std::make_unique<std::array<std::unique_ptr<Node>, kFanout>>();
  }
  NodeEntries entries{};
  std::unique_ptr<std::array<std::unique_ptr<Node>, kFanout>> children;  // inner levels only
  TreeEntry self;
  bool dirty = true;
};

PageTreeBuilder::PageTreeBuilder() : root_(std::make_unique<Node>(true)) {}
PageTreeBuilder::~PageTreeBuilder() = default;

TreeEntry PageTreeBuilder::root() const { return root_->self; }

void PageTreeBuilder::set(uint64_t vpn, TreeEntry data) {
  std::array<Node*, kTreeLevels> path{};
  Node* n = root_.get();
  for (int level = 0; level < kTreeLevels - 1; level++) {
    path[level] = n;
    int i = tree_index(vpn, level);
    auto& child = (*n->children)[i];
    if (!child) {
      if (data.empty()) return;  // zeroing a page under an empty subtree
      child = std::make_unique<Node>(level + 1 < kTreeLevels - 1);
    }
    n = child.get();
  }
  path[kTreeLevels - 1] = n;
  int i = tree_index(vpn, kTreeLevels - 1);
  if (n->entries[i] == data && !n->dirty) return;
  n->entries[i] = data;
  for (Node* p : path) p->dirty = true;  // copy-on-write: the whole path is new
}

void PageTreeBuilder::clear(uint64_t first_vpn, uint64_t end_vpn) {
  if (first_vpn >= end_vpn) return;
  clear_in(*root_, 0, 0, first_vpn, end_vpn);
}

void PageTreeBuilder::clear_in(Node& node, int level, uint64_t base, uint64_t first, uint64_t end) {
  const int shift = kFanoutBits * (kTreeLevels - 1 - level);
  const uint64_t span = 1ull << shift;  // pages per entry at this level
  for (int i = 0; i < kFanout; i++) {
    uint64_t lo = base + uint64_t(i) * span, hi = lo + span;
    if (hi <= first || lo >= end) continue;
    if (level == kTreeLevels - 1) {
      if (!node.entries[i].empty()) {
        node.entries[i] = TreeEntry{};
        node.dirty = true;
      }
      continue;
    }
    auto& child = (*node.children)[i];
    if (!child) continue;
    if (first <= lo && hi <= end) {
      child.reset();
      node.dirty = true;
    } else {
      clear_in(*child, level + 1, lo, first, end);
      if (child->dirty) node.dirty = true;
    }
  }
}

Result<TreeEntry> PageTreeBuilder::commit(ExtentWriter& out) { return commit_node(*root_, 0, out); }

Result<TreeEntry> PageTreeBuilder::commit_node(Node& node, int level, ExtentWriter& out) {
  if (!node.dirty) return node.self;
  bool any = false;
  if (level < kTreeLevels - 1) {
    for (int i = 0; i < kFanout; i++) {
      auto& child = (*node.children)[i];
      if (!child) {
        node.entries[i] = TreeEntry{};
        continue;
      }
      TreeEntry e = TRY(commit_node(*child, level + 1, out));
      if (e.empty()) child.reset();  // subtree became all zero
      node.entries[i] = e;
      any |= !e.empty();
    }
  } else {
    for (const auto& e : node.entries) any |= !e.empty();
  }
  node.dirty = false;
  if (!any) {
    node.self = TreeEntry{};
    return node.self;
  }
  const auto* block = reinterpret_cast<const uint8_t*>(node.entries.data());
  BlockRef ref = TRY(out.put(block));
  node.self = TreeEntry{ref, node_checksum(block, level)};
  return node.self;
}

Result<const NodeEntries*> PageTreeReader::node(TreeEntry entry, int level) const {
  const uint8_t* block = TRY(extents_.block(entry.ref));
  auto* entries = reinterpret_cast<const NodeEntries*>(block);
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = verified_.find(entry.ref);
    if (it != verified_.end() && it->second.checksum == entry.checksum && it->second.level == level) return entries;
  }
  if (node_checksum(block, level) != entry.checksum)
    return Error::msg("tree node (level " + std::to_string(level) + ") checksum mismatch in " + describe_ref(entry.ref));
  std::lock_guard<std::mutex> lock(mu_);
  if (verified_.size() >= kVerifiedLimit) verified_.clear();
  verified_[entry.ref] = Verified{entry.checksum, level};
  return entries;
}

Result<TreeEntry> PageTreeReader::lookup(TreeEntry root, uint64_t vpn) const {
  TreeEntry e = root;
  for (int level = 0; level < kTreeLevels; level++) {
    if (e.empty()) return TreeEntry{};
    auto n = TRY(node(e, level));
    e = (*n)[tree_index(vpn, level)];
  }
  return e;
}

Status PageTreeReader::read_data(TreeEntry entry, uint8_t* out) const {
  const uint8_t* block = TRY(extents_.block(entry.ref));
  std::memcpy(out, block, kBlockSize);
  // Verify the copy: the mapping may change under us (retention reuse).
  if (data_checksum(out) != entry.checksum) return Error::msg("page data checksum mismatch in " + describe_ref(entry.ref));
  return ok_status();
}

Status PageTreeReader::walk(TreeEntry root, std::unordered_set<BlockRef>& seen_nodes, const std::function<void(BlockRef)>& on_data) const {
  return walk_node(root, 0, seen_nodes, on_data);
}

Status PageTreeReader::walk_node(TreeEntry entry, int level, std::unordered_set<BlockRef>& seen,
                                 const std::function<void(BlockRef)>& on_data) const {
  if (entry.empty()) return ok_status();
  if (level == kTreeLevels) {
    on_data(entry.ref);
    return ok_status();
  }
  if (!seen.insert(entry.ref).second) return ok_status();
  auto n = TRY(node(entry, level));
  for (const auto& child : *n) TRY(walk_node(child, level + 1, seen, on_data));
  return ok_status();
}

}  // namespace slsdbg::store
