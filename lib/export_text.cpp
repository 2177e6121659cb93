#include "detail/export_text.hpp"

#include <algorithm>
#include <charconv>
#include <cstring>

#include "detail/utf8.hpp"

namespace inputanim::detail {

namespace {

quote_step escaped(unsigned code_point, std::size_t consumed, char* out) noexcept {
    static constexpr char hex[] = "0123456789abcdef";
    out[0] = '\\';
    out[1] = 'u';
    for (int i = 0; i < 4; ++i) out[2 + i] = hex[(code_point >> (12 - 4 * i)) & 15];
    return {consumed, 6};
}

// Characters YAML 1.1 does not allow raw in a double-quoted scalar, or reads as a line break.
bool escaped_code_point(unsigned cp) noexcept {
    return (cp >= 0x80 && cp <= 0x9f) || cp == 0x2028 || cp == 0x2029 || cp == 0xfeff ||
           (cp >= 0xfdd0 && cp <= 0xfdef) || cp == 0xfffe || cp == 0xffff;
}

}  // namespace

quote_step quote_one(std::string_view s, char* out) noexcept {
    const auto lead = static_cast<unsigned char>(s[0]);
    if (lead < 0x80) {
        if (lead == '"' || lead == '\\') {
            out[0] = '\\';
            out[1] = static_cast<char>(lead);
            return {1, 2};
        }
        if (lead < 0x20 || lead == 0x7f) return escaped(lead, 1, out);
        out[0] = static_cast<char>(lead);
        return {1, 1};
    }
    const std::size_t n = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : 2;
    if (n > s.size() || valid_utf8_prefix(s.substr(0, n)) != n) return escaped(0xfffd, 1, out);
    // Valid: the lead's payload bits, then six from each continuation byte.
    unsigned cp = lead & (0x7fu >> n);
    for (std::size_t i = 1; i < n; ++i) cp = (cp << 6) | (static_cast<unsigned char>(s[i]) & 0x3f);
    if (escaped_code_point(cp)) return escaped(cp, n, out);
    std::memcpy(out, s.data(), n);
    return {n, n};
}

std::uint64_t quoted_length(std::string_view s) noexcept {
    std::uint64_t n = 0;
    char scratch[max_quoted_char];
    while (!s.empty()) {
        const quote_step step = quote_one(s, scratch);
        n += step.written;
        s.remove_prefix(step.consumed);
    }
    return n;
}

text_target& text_target::operator<<(std::string_view s) {
    size_ += s.size();
    if (out_ != nullptr) out_->append(s);
    return *this;
}

text_target& text_target::operator<<(char c) {
    return *this << std::string_view(&c, 1);
}

text_target& text_target::number(double v) {
    char digits[number_chars_max];
    return *this << std::string_view(digits, number_chars(v, digits));
}

text_target& text_target::number(float v) {
    char digits[number_chars_max];
    return *this << std::string_view(digits, number_chars(v, digits));
}

text_target& text_target::integer(std::uint64_t v) {
    char digits[24];
    const auto end = std::to_chars(digits, digits + sizeof digits, v).ptr;
    return *this << std::string_view(digits, static_cast<std::size_t>(end - digits));
}

text_target& text_target::quoted(std::string_view s) {
    *this << '"';
    char scratch[max_quoted_char];
    while (!s.empty()) {
        const quote_step step = quote_one(s, scratch);
        *this << std::string_view(scratch, step.written);
        s.remove_prefix(step.consumed);
    }
    return *this << '"';
}

void piece_buffer::put(std::string_view s) noexcept {
    if (s.empty()) return;
    std::memcpy(cursor(), s.data(), s.size());
    used_ += s.size();
}

std::size_t piece_buffer::copy_from(std::string_view text, std::size_t at) noexcept {
    const std::size_t n = std::min(room(), text.size() - at);
    if (n == 0) return at;
    std::memcpy(cursor(), text.data() + at, n);
    used_ += n;
    return at + n;
}

std::size_t piece_buffer::quote_from(std::string_view name, std::size_t at) noexcept {
    while (at < name.size() && fits(max_quoted_char)) {
        const quote_step step = quote_one(name.substr(at), cursor());
        used_ += step.written;
        at += step.consumed;
    }
    return at;
}

}  // namespace inputanim::detail
