// validate()'s level-full pass in pieces, for validate() on threads to spread a large file's
// content checks over threads: ranges of curves that keep a rotation's four curves together,
// checked independently, whose first errors and quaternion warnings combine into validate()'s
// report.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "inputanim/recording.hpp"
#include "inputanim/validate.hpp"

namespace inputanim::detail {

// The rotations: the camera's, then every joint's of the left and the right hand.
inline constexpr std::size_t rotation_count = 1 + 2 * joint_count;
// The non_unit_quaternion warning of each rotation (count 0: none).
using unit_lengths = std::array<warning, rotation_count>;

// The content checks of curves [first, end) of a table that passed the structure walk, and of
// its markers when `markers`: the first error in file order. With `units`, a rotation whose x
// curve lies in the range is checked whole, its four curves side by side with its quaternion
// lengths (so that its warning is found by exactly one range).
error check_content(const recording& rec, std::size_t first, std::size_t end, bool markers,
                    unit_lengths* units) noexcept;

// Where a range of curves should start so that ranges begin near byte `offset`: the first curve
// at or after it, moved past any rotation it would split (whose curves the range before it
// checks already).
std::size_t content_cut(const recording& rec, std::uint64_t offset) noexcept;

// validate()'s warnings for a table that passed: negative_time and dropped_rotation_w, and with
// `units` (level full, content passed) non_unit_quaternion.
void add_report_warnings(const recording& rec, const unit_lengths* units, report& rep) noexcept;

}  // namespace inputanim::detail
