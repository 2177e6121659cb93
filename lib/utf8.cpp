#include "detail/utf8.hpp"

namespace inputanim::detail {

std::size_t valid_utf8_prefix(std::string_view s) noexcept {
    utf8_decoder decoder;
    std::size_t boundary = 0;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (!decoder.add(static_cast<std::uint8_t>(s[i]))) return boundary;
        if (decoder.at_boundary()) boundary = i + 1;
    }
    return boundary;
}

}  // namespace inputanim::detail
