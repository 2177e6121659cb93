// Poses, rays and hand states at a time, from the curves of a recording: each component is
// evaluate()'s value of its curve (evaluate.cpp).
#include <array>
#include <cmath>

#include "inputanim/evaluate.hpp"

namespace inputanim {

quat normalized(const quat& q) noexcept {
    const double x = q.x;
    const double y = q.y;
    const double z = q.z;
    const double w = q.w;
    const double length = std::sqrt(x * x + y * y + z * z + w * w);
    if (!(length > 0.0) || std::isinf(length)) return {};
    return {static_cast<float>(x / length), static_cast<float>(y / length),
            static_cast<float>(z / length), static_cast<float>(w / length)};
}

namespace {

// The curves of a group, or false when the file lacks one or none has a key.
template <std::size_t N>
bool gather(const recording& rec, curve_id first, std::array<const curve_view*, N>& out) noexcept {
    bool any_keys = false;
    for (std::size_t i = 0; i < N; ++i) {
        out[i] = rec.find(curve_id(to_index(first) + i));
        if (out[i] == nullptr) return false;
        any_keys = any_keys || !out[i]->keys.empty();
    }
    return any_keys;
}

std::optional<pose> pose_at(const recording& rec, curve_id first, float t, rotation r) noexcept {
    std::array<const curve_view*, pose_channel_count> c{};
    if (!gather(rec, first, c)) return std::nullopt;
    pose p;
    p.position = {evaluate(*c[0], t), evaluate(*c[1], t), evaluate(*c[2], t)};
    p.rotation = {evaluate(*c[3], t), evaluate(*c[4], t), evaluate(*c[5], t), evaluate(*c[6], t)};
    if (r == rotation::normalized) p.rotation = normalized(p.rotation);
    return p;
}

std::optional<bool> state_at(const recording& rec, hand_state s, float t) noexcept {
    std::array<const curve_view*, 1> c{};
    if (!gather(rec, hand_state_curve(s), c)) return std::nullopt;
    return evaluate_bool(*c[0], t);
}

}  // namespace

std::optional<pose> camera_pose(const recording& rec, float t, rotation r) noexcept {
    return pose_at(rec, camera_curve(pose_channel::position_x), t, r);
}

std::optional<pose> joint_pose(const recording& rec, side s, joint j, float t,
                               rotation r) noexcept {
    return pose_at(rec, joint_curve(s, j, pose_channel::position_x), t, r);
}

std::optional<ray> gaze_ray(const recording& rec, float t) noexcept {
    std::array<const curve_view*, ray_channel_count> c{};
    if (!gather(rec, gaze_curve(ray_channel::origin_x), c)) return std::nullopt;
    return ray{{evaluate(*c[0], t), evaluate(*c[1], t), evaluate(*c[2], t)},
               {evaluate(*c[3], t), evaluate(*c[4], t), evaluate(*c[5], t)}};
}

std::optional<bool> hand_tracked(const recording& rec, side s, float t) noexcept {
    return state_at(rec, s == side::left ? hand_state::left_tracked : hand_state::right_tracked, t);
}

std::optional<bool> hand_pinching(const recording& rec, side s, float t) noexcept {
    return state_at(rec, s == side::left ? hand_state::left_pinching : hand_state::right_pinching,
                    t);
}

}  // namespace inputanim
