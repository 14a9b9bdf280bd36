#include "gdbserver/protocol/hex.h"

namespace slsdbg::gdbserver {
namespace {

constexpr char kDigits[] = "0123456789abcdef";

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

void append_hex(std::string& out, std::span<const uint8_t> bytes) {
  out.reserve(out.size() + bytes.size() * 2);
  for (uint8_t b : bytes) {
    out.push_back(kDigits[b >> 4]);
    out.push_back(kDigits[b & 0xf]);
  }
}

std::string to_hex(std::span<const uint8_t> bytes) {
  std::string out;
  append_hex(out, bytes);
  return out;
}

std::string to_hex(std::string_view text) {
  return to_hex(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
}

std::optional<std::vector<uint8_t>> from_hex(std::string_view hex) {
  if (hex.size() % 2 != 0) return std::nullopt;
  std::vector<uint8_t> out(hex.size() / 2);
  for (size_t i = 0; i < out.size(); ++i) {
    int hi = hex_value(hex[2 * i]);
    int lo = hex_value(hex[2 * i + 1]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out[i] = static_cast<uint8_t>(hi << 4 | lo);
  }
  return out;
}

std::optional<std::string> text_from_hex(std::string_view hex) {
  auto bytes = from_hex(hex);
  if (!bytes) return std::nullopt;
  return std::string(bytes->begin(), bytes->end());
}

std::optional<uint64_t> parse_hex_u64(std::string_view digits) {
  if (digits.empty() || digits.size() > 16) return std::nullopt;
  uint64_t value = 0;
  for (char c : digits) {
    int v = hex_value(c);
    if (v < 0) return std::nullopt;
    value = value << 4 | static_cast<uint64_t>(v);
  }
  return value;
}

std::optional<std::pair<std::string_view, std::string_view>> split_once(std::string_view s, char sep) {
  size_t at = s.find(sep);
  if (at == std::string_view::npos) return std::nullopt;
  return std::make_pair(s.substr(0, at), s.substr(at + 1));
}

std::string hex_number(uint64_t value) {
  if (value == 0) return "0";
  std::string out;
  while (value != 0) {
    out.insert(out.begin(), kDigits[value & 0xf]);
    value >>= 4;
  }
  return out;
}

void append_escaped_binary(std::string& out, std::span<const uint8_t> bytes) {
  for (uint8_t b : bytes) {
    if (b == '#' || b == '$' || b == '}' || b == '*') {
      out.push_back('}');
      out.push_back(static_cast<char>(b ^ 0x20));
    } else {
      out.push_back(static_cast<char>(b));
    }
  }
}

std::optional<std::vector<uint8_t>> unescape_binary(std::string_view escaped) {
  std::vector<uint8_t> out;
  out.reserve(escaped.size());
  for (size_t i = 0; i < escaped.size(); ++i) {
    uint8_t c = static_cast<uint8_t>(escaped[i]);
    if (c == '}') {
      if (i + 1 >= escaped.size()) return std::nullopt;
      out.push_back(static_cast<uint8_t>(escaped[++i]) ^ 0x20);
    } else {
      out.push_back(c);
    }
  }
  return out;
}

}  // namespace slsdbg::gdbserver
