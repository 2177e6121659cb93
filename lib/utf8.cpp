#include "detail/utf8.hpp"

#include <cstdint>

namespace inputanim::detail {

std::size_t valid_utf8_prefix(std::string_view s) noexcept {
    std::size_t i = 0;
    const std::size_t n = s.size();
    while (i < n) {
        const auto c = static_cast<std::uint8_t>(s[i]);
        if (c < 0x80) {
            ++i;
            continue;
        }
        std::size_t len = 0;
        std::uint8_t lo = 0x80;
        std::uint8_t hi = 0xbf;
        if (c >= 0xc2 && c <= 0xdf) {
            len = 2;
        } else if (c >= 0xe0 && c <= 0xef) {
            len = 3;
            if (c == 0xe0) lo = 0xa0;  // overlong
            if (c == 0xed) hi = 0x9f;  // surrogates
        } else if (c >= 0xf0 && c <= 0xf4) {
            len = 4;
            if (c == 0xf0) lo = 0x90;  // overlong
            if (c == 0xf4) hi = 0x8f;  // above U+10FFFF
        } else {
            return i;
        }
        if (len > n - i) return i;
        const auto c1 = static_cast<std::uint8_t>(s[i + 1]);
        if (c1 < lo || c1 > hi) return i;
        for (std::size_t k = 2; k < len; ++k) {
            const auto ck = static_cast<std::uint8_t>(s[i + k]);
            if (ck < 0x80 || ck > 0xbf) return i;
        }
        i += len;
    }
    return i;
}

}  // namespace inputanim::detail
