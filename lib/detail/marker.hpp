// Reading one marker (Float32 time, 7-bit-encoded length, UTF-8 name) with every field checked
// against the bytes left; shared by the reader's walk and the recording's marker range.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "detail/rules.hpp"
#include "inputanim/detail/decoders.hpp"
#include "inputanim/error.hpp"
#include "inputanim/views.hpp"

namespace inputanim::detail {

struct marker_result {
    fault error{};
    std::uint64_t error_offset = 0;
    // Offset just past the marker, when code == ok.
    std::uint64_t end = 0;
};

// Reads the marker whose time field is at `offset`, filling `out` (time, name, offset).
// `lim` holds the configured limit on the name's length.
marker_result read_marker(std::span<const std::byte> bytes, std::uint64_t offset, const limits& lim,
                          marker_view& out) noexcept;

}  // namespace inputanim::detail
