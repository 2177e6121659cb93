// The per-field rules of FORMAT.md section 6 and the warning rules that need no more than
// per-curve key counts, shared by the whole-buffer walk (reader.cpp, validate.cpp) and the
// streaming validator (stream.cpp) so that the two cannot drift apart.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>

#include "detail/load.hpp"
#include "inputanim/error.hpp"
#include "inputanim/format.hpp"
#include "inputanim/validate.hpp"

namespace inputanim::detail {

// Unity WrapMode values.
constexpr bool valid_wrap_mode(std::int32_t m) noexcept {
    return m == 0 || m == 1 || m == 2 || m == 4 || m == 8;
}

// A content error inside one keyframe: the code and the offending field's offset within the key.
struct keyframe_fault {
    errc code = errc::ok;
    std::uint8_t field = 0;
};

// Level full's checks of one keyframe, in FORMAT.md's order. `previous` is the time of the key
// before it in the same curve (ignored for the first key).
inline keyframe_fault check_keyframe(const std::byte* p, bool full, bool is_bool, bool first,
                                     float previous) noexcept {
    const float t = load_f32_le(p);
    if (!std::isfinite(t)) return {errc::non_finite, 0};
    const float v = load_f32_le(p + 4);
    if (!std::isfinite(v)) return {errc::non_finite, 4};
    if (is_bool && v != 0.0f && v != 1.0f) return {errc::bad_bool_value, 4};
    if (full) {
        for (std::uint8_t f = 8; f <= 12; f += 4) {
            // Infinite tangents are legal: they mean a stepped segment.
            if (std::isnan(load_f32_le(p + f))) return {errc::non_finite, f};
        }
        for (std::uint8_t f = 16; f <= 20; f += 4) {
            if (!std::isfinite(load_f32_le(p + f))) return {errc::non_finite, f};
        }
        const std::int32_t mode = load_i32_le(p + 24);
        if (mode < 0 || mode > 3) return {errc::bad_weighted_mode, 24};
    }
    if (!first && !(t > previous)) return {errc::unsorted_keys, 0};
    return {};
}

// Pose rotations (camera, every joint) as the id of their rotation.x curve; y, z and w follow.
template <class F>
void for_each_rotation(F&& f) {
    f(camera_curve(pose_channel::rotation_x));
    for (side s : {side::left, side::right}) {
        for (std::size_t j = 0; j < joint_count; ++j) {
            f(joint_curve(s, static_cast<joint>(j), pose_channel::rotation_x));
        }
    }
}

// MRTK issue 9831: rotation.w kept one key while x, y and z kept many.
constexpr bool dropped_rotation_w(std::size_t x, std::size_t y, std::size_t z,
                                  std::size_t w) noexcept {
    return w == 1 && x > 1 && y > 1 && z > 1;
}

// Keeps the first report::max_warnings warnings and counts them all.
inline void add_warning(report& r, const warning& w) noexcept {
    if (r.warning_count < report::max_warnings) r.warning_list[r.warning_count++] = w;
    ++r.warnings_found;
}

}  // namespace inputanim::detail
