// The errors between two poses, in the units people read them in: shared by the comparison of two
// recordings and the estimate of their time offset (the head's angular speed is the rotation error
// between consecutive rows).
#pragma once

#include <cmath>
#include <numbers>

#include "inputanim/evaluate.hpp"

namespace inputanim::detail {

inline constexpr double degrees_per_radian = 180.0 / std::numbers::pi;

struct dvec {
    double x = 0.0;
    double y = 0.0;
    double z = 0.0;
};
inline double dot(const dvec& a, const dvec& b) noexcept {
    return a.x * b.x + a.y * b.y + a.z * b.z;
}
inline dvec cross(const dvec& a, const dvec& b) noexcept {
    return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
inline double length(const dvec& a) noexcept {
    return std::sqrt(dot(a, a));
}

// The distance between two positions, metres.
inline double position_error(const float* a, const float* b) noexcept {
    const dvec d{double(a[0]) - b[0], double(a[1]) - b[1], double(a[2]) - b[2]};
    return length(d);
}

// The angle of the rotation between two quaternions, degrees, the shorter way round (q and -q are
// one rotation): the rotation conj(qa) * qb has the angle 2 atan2(|vector part|, |scalar part|),
// which keeps small angles accurate where 2 acos(|qa . qb|) loses them near 1. Each side is
// normalised as `normalized` does (a zero quaternion is the identity).
inline double rotation_error(const float* a, const float* b) noexcept {
    const quat qa = normalized({a[0], a[1], a[2], a[3]});
    const quat qb = normalized({b[0], b[1], b[2], b[3]});
    const dvec va{qa.x, qa.y, qa.z};
    const dvec vb{qb.x, qb.y, qb.z};
    const double scalar = double(qa.w) * qb.w + dot(va, vb);
    const dvec c = cross(va, vb);
    const dvec vec{qa.w * vb.x - qb.w * va.x - c.x, qa.w * vb.y - qb.w * va.y - c.y,
                   qa.w * vb.z - qb.w * va.z - c.z};
    return 2.0 * std::atan2(length(vec), std::abs(scalar)) * degrees_per_radian;
}

// The angle between two gaze directions, degrees (atan2 of the cross and dot products, accurate
// for small angles). A zero direction has none: 0 when both are zero, else 180.
inline double direction_error(const float* a, const float* b) noexcept {
    const dvec da{a[0], a[1], a[2]};
    const dvec db{b[0], b[1], b[2]};
    const bool a_zero = length(da) == 0.0;
    const bool b_zero = length(db) == 0.0;
    if (a_zero || b_zero) return a_zero && b_zero ? 0.0 : 180.0;
    return std::atan2(length(cross(da, db)), dot(da, db)) * degrees_per_radian;
}

}  // namespace inputanim::detail
