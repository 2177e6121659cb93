#pragma once

#include <cstddef>
#include <string_view>

#include "inputanim/detail/decoders.hpp"

namespace inputanim::detail {

// Length of the longest valid UTF-8 prefix of `s` (RFC 3629: no overlong forms, no surrogates,
// nothing above U+10FFFF) that ends between characters; equals s.size() when all of `s` is valid.
std::size_t valid_utf8_prefix(std::string_view s) noexcept;

}  // namespace inputanim::detail
