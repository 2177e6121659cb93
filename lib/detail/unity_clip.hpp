// Where the recording's curves live in a Unity AnimationClip (docs/EXPORT.md, "Bindings"), and
// how wrap modes become its infinity modes: the one table `export --format anim` writes and the
// .anim importer reads back.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "inputanim/format.hpp"

namespace inputanim::detail {

// Unity's wrap modes as its serialised AnimationCurve stores them (m_PreInfinity,
// m_PostInfinity): PingPong 0, Repeat 1, Clamp 2. WrapMode Loop (2) repeats and PingPong (4)
// reflects; every other mode holds the end value (FORMAT.md section 7).
constexpr int unity_infinity(std::int32_t wrap) noexcept {
    if (wrap == 2) return 1;
    if (wrap == 4) return 0;
    return 2;
}

// The wrap mode an infinity mode comes back as: Repeat is Loop (2), PingPong is PingPong (4),
// and Clamp is what MRTK writes (8, ClampForever), which holds the end value as Clamp does.
constexpr std::int32_t wrap_of_unity_infinity(int infinity) noexcept {
    if (infinity == 1) return 2;
    if (infinity == 0) return 4;
    return 8;
}

// Where a curve of the recording is bound in the clip: the path of the GameObject, the property
// (`attribute_hand` prefixes a pinch parameter's name) and Unity's class id.
struct unity_binding {
    std::string_view path_hand;   // "", "Camera", "Gaze", "Gaze/Direction", "LeftHand", ...
    std::string_view path_joint;  // a joint's name, after path_hand and '/'
    std::string_view attribute_hand;
    std::string_view attribute;
    int class_id = 4;
};

constexpr unity_binding unity_binding_of(curve_id id) noexcept {
    constexpr std::array<std::string_view, pose_channel_count> pose_attributes = {
        "m_LocalPosition.x", "m_LocalPosition.y", "m_LocalPosition.z", "m_LocalRotation.x",
        "m_LocalRotation.y", "m_LocalRotation.z", "m_LocalRotation.w"};
    constexpr std::array<std::string_view, 3> positions = {"m_LocalPosition.x", "m_LocalPosition.y",
                                                           "m_LocalPosition.z"};
    const std::size_t i = to_index(id);
    if (i < hand_state_first) return {"Camera", {}, {}, pose_attributes[i], 4};
    if (i < left_joint_first) {
        const std::size_t s = i - hand_state_first;
        const std::string_view hand = s % 2 == 0 ? "LeftHand" : "RightHand";
        // tracked drives the hand's GameObject; pinching an Animator parameter on the root.
        if (s < 2) return {hand, {}, {}, "m_IsActive", 1};
        return {{}, {}, hand, "Pinching", 95};
    }
    if (i < gaze_first) {
        const std::size_t k = i - left_joint_first;
        const std::size_t per_hand = joint_count * pose_channel_count;
        return {k < per_hand ? "LeftHand" : "RightHand",
                joint_names[(k % per_hand) / pose_channel_count],
                {},
                pose_attributes[k % pose_channel_count],
                4};
    }
    const std::size_t g = i - gaze_first;
    return {g < 3 ? "Gaze" : "Gaze/Direction", {}, {}, positions[g % 3], 4};
}

// Curves the clip carries: every curve of the file but the None joint's.
constexpr bool in_unity_clip(curve_id id) noexcept {
    const std::size_t i = to_index(id);
    if (i < left_joint_first || i >= gaze_first) return true;
    return ((i - left_joint_first) % (joint_count * pose_channel_count)) / pose_channel_count != 0;
}

}  // namespace inputanim::detail
