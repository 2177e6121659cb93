#include "os/text.hpp"

#include <array>
#include <charconv>
#include <cstdint>

#include "inputanim/detail/decoders.hpp"
#include "inputanim/detail/number_text.hpp"

namespace inputanim::tools {

namespace {

void append_hex_escape(std::string& out, unsigned char byte) {
    constexpr std::string_view digits = "0123456789ABCDEF";
    out += "\\x";
    out += digits[byte >> 4];
    out += digits[byte & 0xf];
}

}  // namespace

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

std::string printable(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    std::size_t i = 0;
    while (i < text.size()) {
        const auto c = static_cast<unsigned char>(text[i]);
        if (c < 0x80) {
            if (c == '\\') {
                out += "\\\\";
            } else if (c == '\n') {
                out += "\\n";
            } else if (c == '\r') {
                out += "\\r";
            } else if (c == '\t') {
                out += "\\t";
            } else if (c < 0x20 || c == 0x7f) {
                append_hex_escape(out, c);
            } else {
                out += static_cast<char>(c);
            }
            ++i;
            continue;
        }
        // A multi-byte character stays whole when it is valid UTF-8 and not a C1 control (two
        // bytes, C2 80 to C2 9F), which some terminals obey as they obey ESC.
        detail::utf8_decoder utf8;
        std::size_t end = i;
        bool whole = false;
        while (end < text.size() && utf8.add(static_cast<std::uint8_t>(text[end]))) {
            ++end;
            if (utf8.at_boundary()) {
                whole = true;
                break;
            }
        }
        const bool c1 =
            whole && end - i == 2 && c == 0xc2 && static_cast<unsigned char>(text[i + 1]) < 0xa0;
        if (whole && !c1) {
            out.append(text.substr(i, end - i));
            i = end;
        } else if (c1) {
            append_hex_escape(out, c);
            append_hex_escape(out, static_cast<unsigned char>(text[i + 1]));
            i = end;
        } else {
            // Only the first byte: what follows it may start a valid character.
            append_hex_escape(out, c);
            ++i;
        }
    }
    return out;
}

std::string number_text(double v) {
    return detail::number_text(v);
}

std::string number_text(float v) {
    return detail::number_text(v);
}

std::string csv_field(std::string_view text) {
    if (text.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(text);
    std::string quoted = "\"";
    for (const char c : text) {
        if (c == '"') quoted += '"';
        quoted += c;
    }
    return quoted + '"';
}

}  // namespace inputanim::tools
