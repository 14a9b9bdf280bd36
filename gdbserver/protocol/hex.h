// Hex and binary encodings of the remote serial protocol: hex pairs for
// register and memory contents, big-endian hex numbers for addresses and
// lengths, and the '}'-escape of binary payloads (X, qXfer replies).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace slsdbg::gdbserver {

// "0a1b" for {0x0a, 0x1b}; lower case, as GDB and LLDB send it.
void append_hex(std::string& out, std::span<const uint8_t> bytes);
std::string to_hex(std::span<const uint8_t> bytes);
std::string to_hex(std::string_view text);

// Decodes an even number of hex digits; nullopt on odd length or a non-hex character.
std::optional<std::vector<uint8_t>> from_hex(std::string_view hex);
std::optional<std::string> text_from_hex(std::string_view hex);

// A big-endian hex number of 1..16 digits with nothing after it; nullopt otherwise.
std::optional<uint64_t> parse_hex_u64(std::string_view digits);

// Splits "a,b" at the first separator; nullopt when it is absent.
std::optional<std::pair<std::string_view, std::string_view>> split_once(std::string_view s, char sep);

// "1f" style lower-case hex of a number, no leading zeros.
std::string hex_number(uint64_t value);

// Binary data escaping: '#', '$', '}' and '*' become '}' followed by the byte
// XOR 0x20 ('*' would otherwise start a run-length sequence in a reply).
void append_escaped_binary(std::string& out, std::span<const uint8_t> bytes);
// Reverses the escape; nullopt when the data ends in a lone '}'.
std::optional<std::vector<uint8_t>> unescape_binary(std::string_view escaped);

}  // namespace slsdbg::gdbserver
