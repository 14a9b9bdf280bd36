// Little-endian byte writer/reader with LEB128 varints, shared by the event
// log and process-state encodings. The reader never trusts its input: every
// read is bounds-checked and a short or malformed buffer sets a sticky error.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace slsdbg::store {

class ByteWriter {
 public:
  void u8(uint8_t v) { buf_.push_back(v); }
  void u16(uint16_t v) { raw(&v, 2); }
  void u32(uint32_t v) { raw(&v, 4); }
  void u64(uint64_t v) { raw(&v, 8); }
  void varint(uint64_t v) {
    while (v >= 0x80) {
      buf_.push_back(uint8_t(v) | 0x80);
      v >>= 7;
    }
    buf_.push_back(uint8_t(v));
  }
  void svarint(int64_t v) { varint((uint64_t(v) << 1) ^ uint64_t(v >> 63)); }  // zigzag
  void bytes(const void* p, size_t n) {
    varint(n);
    raw(p, n);
  }
  void str(const std::string& s) { bytes(s.data(), s.size()); }
  void raw(const void* p, size_t n) {
    auto* b = static_cast<const uint8_t*>(p);
    buf_.insert(buf_.end(), b, b + n);
  }
  std::vector<uint8_t>& buffer() { return buf_; }
  std::vector<uint8_t> take() { return std::move(buf_); }

 private:
  std::vector<uint8_t> buf_;
};

class ByteReader {
 public:
  ByteReader(const uint8_t* data, size_t size) : p_(data), end_(data + size) {}

  bool ok() const { return ok_; }
  bool at_end() const { return p_ == end_; }
  size_t remaining() const { return size_t(end_ - p_); }

  uint8_t u8() {
    uint8_t v = 0;
    raw(&v, 1);
    return v;
  }
  uint16_t u16() {
    uint16_t v = 0;
    raw(&v, 2);
    return v;
  }
  uint32_t u32() {
    uint32_t v = 0;
    raw(&v, 4);
    return v;
  }
  uint64_t u64() {
    uint64_t v = 0;
    raw(&v, 8);
    return v;
  }
  uint64_t varint() {
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (p_ >= end_) return fail();
      uint8_t b = *p_++;
      v |= uint64_t(b & 0x7f) << shift;
      if (!(b & 0x80)) return v;
    }
    return fail();
  }
  int64_t svarint() {
    uint64_t v = varint();
    return int64_t(v >> 1) ^ -int64_t(v & 1);
  }
  // A length-prefixed byte string; `limit` guards against absurd lengths.
  std::vector<uint8_t> bytes(size_t limit = 1ull << 30) {
    uint64_t n = varint();
    if (!ok_ || n > remaining() || n > limit) {
      fail();
      return {};
    }
    std::vector<uint8_t> v(p_, p_ + n);
    p_ += n;
    return v;
  }
  std::string str() {
    auto b = bytes();
    return std::string(b.begin(), b.end());
  }
  void raw(void* out, size_t n) {
    if (!ok_ || n > remaining()) {
      fail();
      std::memset(out, 0, n);
      return;
    }
    std::memcpy(out, p_, n);
    p_ += n;
  }
  // Element counts: each element needs at least `min_bytes`, so a count
  // larger than the rest of the buffer allows is malformed.
  uint64_t count(size_t min_bytes = 1) {
    uint64_t n = varint();
    if (ok_ && n > remaining() / (min_bytes ? min_bytes : 1)) fail();
    return ok_ ? n : 0;
  }

 private:
  uint64_t fail() {
    ok_ = false;
    p_ = end_;
    return 0;
  }
  const uint8_t* p_;
  const uint8_t* end_;
  bool ok_ = true;
};

}  // namespace slsdbg::store
