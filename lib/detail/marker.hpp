// Reading one marker (Float32 time, 7-bit-encoded length, UTF-8 name) with every field checked
// against the bytes left; shared by the reader's walk and the recording's marker range.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "inputanim/detail/decoders.hpp"
#include "inputanim/error.hpp"
#include "inputanim/views.hpp"

namespace inputanim::detail {

struct marker_result {
    errc code = errc::ok;
    std::uint64_t error_offset = 0;
    // Offset just past the marker, when code == ok.
    std::uint64_t end = 0;
};

// The checks on a complete name length, in order: bad_marker above 2^31-1, then the configured
// limit (limit_exceeded); ok otherwise.
constexpr errc check_name_length(std::uint64_t length, std::uint32_t max_name_bytes) noexcept {
    if (length > 0x7fffffffu) return errc::bad_marker;
    if (length > max_name_bytes) return errc::limit_exceeded;
    return errc::ok;
}

// Reads the marker whose time field is at `offset`, filling `out` (time, name, offset).
// `max_name_bytes` is the configured limit on the name's length.
marker_result read_marker(std::span<const std::byte> bytes, std::uint64_t offset,
                          std::uint32_t max_name_bytes, marker_view& out) noexcept;

}  // namespace inputanim::detail
