// The inverse of an enumeration's name function, shared by the public parse_* functions.
#pragma once

#include <limits>
#include <optional>
#include <string_view>
#include <type_traits>

namespace inputanim::detail {

// What every name function returns for a value outside its enumeration.
inline constexpr std::string_view unknown_name = "unknown";

// The enumerator whose name(value) is `text`. The enumerators must run from 0 without gaps, so
// that the first value named `unknown_name` ends them: a new enumerator is then parsed as soon as
// its name function (a switch without default, which the compiler checks) names it.
template <class Enum, class Name>
constexpr std::optional<Enum> parse_name(std::string_view text, Name name) noexcept {
    using underlying = std::underlying_type_t<Enum>;
    for (unsigned v = 0; v <= std::numeric_limits<underlying>::max(); ++v) {
        const std::string_view n = name(static_cast<Enum>(v));
        if (n == unknown_name) break;
        if (n == text) return static_cast<Enum>(v);
    }
    return std::nullopt;
}

}  // namespace inputanim::detail
