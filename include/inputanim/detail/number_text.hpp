// Numbers as text, the one way the project spells them: the shortest decimal that reads back as
// the same value (std::to_chars), with no locale. The exporters, the reports, `sample` and Python
// all write their numbers through here.
#pragma once

#include <charconv>
#include <cstddef>
#include <string>

namespace inputanim::detail {

// Room enough for any float, double or 64-bit integer in its shortest form.
inline constexpr std::size_t number_chars_max = 32;

// `v` into `out` (number_chars_max bytes); returns its length. NaN and infinities come out as
// "nan", "inf" and "-inf": a format that spells them otherwise, or refuses them, does so first.
template <typename Number>
std::size_t number_chars(Number v, char* out) noexcept {
    return static_cast<std::size_t>(std::to_chars(out, out + number_chars_max, v).ptr - out);
}

template <typename Number>
std::string number_text(Number v) {
    char digits[number_chars_max];
    return std::string(digits, number_chars(v, digits));
}

}  // namespace inputanim::detail
