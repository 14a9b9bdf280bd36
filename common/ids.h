// Typed ids and typed remote pointers: a checkpoint id is not a tid, and an
// address in the tracee is not a host pointer. Mixing them is a compile error.
#pragma once

#include <compare>
#include <cstdint>
#include <functional>

namespace slsdbg {

template <typename Tag, typename Rep>
struct StrongId {
  Rep value{};
  constexpr StrongId() = default;
  constexpr explicit StrongId(Rep v) : value(v) {}
  constexpr auto operator<=>(const StrongId&) const = default;
};

struct CheckpointTag {};
struct SegmentTag {};
struct TidTag {};

// Checkpoint k; segment k runs from checkpoint k to checkpoint k+1.
using CheckpointId = StrongId<CheckpointTag, uint64_t>;
using SegmentId = StrongId<SegmentTag, uint64_t>;
using Tid = StrongId<TidTag, int32_t>;

inline constexpr SegmentId segment_after(CheckpointId k) { return SegmentId(k.value); }

// An address in another address space. Arithmetic is in bytes.
struct RemoteAddr {
  uint64_t value = 0;
  constexpr RemoteAddr() = default;
  constexpr explicit RemoteAddr(uint64_t v) : value(v) {}
  constexpr auto operator<=>(const RemoteAddr&) const = default;
  constexpr RemoteAddr operator+(uint64_t off) const { return RemoteAddr(value + off); }
  constexpr uint64_t operator-(RemoteAddr o) const { return value - o.value; }
};

// A typed pointer into the tracee: remote_ptr<int> + 1 advances by 4 bytes.
template <typename T>
struct RemotePtr {
  RemoteAddr addr;
  constexpr RemotePtr() = default;
  constexpr explicit RemotePtr(RemoteAddr a) : addr(a) {}
  constexpr RemotePtr operator+(int64_t n) const { return RemotePtr(RemoteAddr(addr.value + n * sizeof(T))); }
  constexpr auto operator<=>(const RemotePtr&) const = default;
};

inline constexpr uint64_t kPageSize = 4096;
inline constexpr uint64_t page_floor(uint64_t a) { return a & ~(kPageSize - 1); }
inline constexpr uint64_t page_ceil(uint64_t a) { return (a + kPageSize - 1) & ~(kPageSize - 1); }

}  // namespace slsdbg

template <typename Tag, typename Rep>
struct std::hash<slsdbg::StrongId<Tag, Rep>> {
  size_t operator()(const slsdbg::StrongId<Tag, Rep>& id) const { return std::hash<Rep>()(id.value); }
};
