// A deliberately naive structure checker written straight from FORMAT.md sections 2-6 and the
// decisions of docs/VALIDATION.md, sharing no code with the library's reader. Tests compare the
// library against it on mutated files: two independent readings of the spec must agree.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "inputanim/inputanim.hpp"

namespace inputanim::testing::reference {

struct verdict {
    errc code = errc::ok;
    std::uint64_t offset = 0;
    error_place place = error_place::none;
    // Meaningful when place == curve.
    curve_id curve{};
    // Keyframe index 0 for keyframes that do not fit, the marker index for marker fields, else -1.
    std::int64_t index = -1;
    // The layout the verdict was reached under (v1.1 only; v1.0 is always full).
    layout chosen = layout::full;
};

// The structure walk with default limits; `automatic` applies FORMAT.md section 3.
verdict check_structure(std::span<const std::byte> bytes,
                        layout_choice choice = layout_choice::automatic);

}  // namespace inputanim::testing::reference
