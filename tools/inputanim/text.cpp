#include "text.hpp"

#include <cstdint>

#include "inputanim/detail/decoders.hpp"

namespace inputanim::cli {

bool valid_utf8(std::string_view bytes) noexcept {
    // The rule the library checks marker names with (RFC 3629).
    detail::utf8_decoder decoder;
    for (const char c : bytes) {
        if (!decoder.add(static_cast<std::uint8_t>(c))) return false;
    }
    return decoder.at_boundary();
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
