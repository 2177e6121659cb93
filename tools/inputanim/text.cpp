#include "text.hpp"

#include <cstdint>

namespace inputanim::cli {

namespace {

// The length of the well-formed UTF-8 sequence that starts at s[i], or 0 when s[i] does not
// start one (Unicode 15, table 3-7).
std::size_t sequence_length(std::string_view s, std::size_t i) noexcept {
    const auto byte = [&](std::size_t k) { return static_cast<std::uint8_t>(s[i + k]); };
    const std::uint8_t b0 = byte(0);
    if (b0 < 0x80) return 1;
    std::size_t n = 0;
    std::uint8_t low = 0x80;
    std::uint8_t high = 0xbf;
    if (b0 >= 0xc2 && b0 <= 0xdf) {
        n = 2;
    } else if (b0 >= 0xe0 && b0 <= 0xef) {
        n = 3;
        if (b0 == 0xe0) low = 0xa0;   // overlong
        if (b0 == 0xed) high = 0x9f;  // surrogates
    } else if (b0 >= 0xf0 && b0 <= 0xf4) {
        n = 4;
        if (b0 == 0xf0) low = 0x90;   // overlong
        if (b0 == 0xf4) high = 0x8f;  // past U+10FFFF
    } else {
        return 0;
    }
    if (n > s.size() - i) return 0;
    if (byte(1) < low || byte(1) > high) return 0;
    for (std::size_t k = 2; k < n; ++k) {
        if (byte(k) < 0x80 || byte(k) > 0xbf) return 0;
    }
    return n;
}

}  // namespace

bool valid_utf8(std::string_view bytes) noexcept {
    for (std::size_t i = 0; i < bytes.size();) {
        const std::size_t n = sequence_length(bytes, i);
        if (n == 0) return false;
        i += n;
    }
    return true;
}

std::string hex_bytes(std::string_view bytes) {
    static constexpr std::string_view digits = "0123456789abcdef";
    std::string out;
    out.reserve(2 * bytes.size());
    for (const char c : bytes) {
        const auto b = static_cast<std::uint8_t>(c);
        out += digits[b >> 4];
        out += digits[b & 0xf];
    }
    return out;
}

}  // namespace inputanim::cli
