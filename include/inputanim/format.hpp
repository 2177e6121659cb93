// The file format's fixed facts (FORMAT.md sections 1-4): magic, versions, layouts, and the
// table of every curve a file can hold, with its stable dotted path.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace inputanim {

inline constexpr std::uint64_t file_magic = 0x6a8faf6e0f9e42c6ULL;
inline constexpr std::size_t header_size = 16;
inline constexpr std::size_t v11_flags_offset = 16;
inline constexpr std::size_t curve_header_size = 12;
inline constexpr std::size_t full_keyframe_size = 28;
inline constexpr std::size_t compact_keyframe_size = 8;
inline constexpr std::size_t bool_keyframe_size = 8;

// How v1.1 float keyframes are stored. v1.0 files and the 2019 layouts are always `full`.
enum class layout : std::uint8_t { compact, full };
// Which kind of file MRTK wrote (FORMAT.md sections 2, 3 and 9): a v1.x file with its header, or
// one of the two headerless layouts of MRTK's development branch in 2019.
enum class edition : std::uint8_t { v1, june_2019, may_2019 };
// What a reader is told to expect: `automatic` reads a v1.x file (FORMAT.md section 3 picks a
// v1.1 file's layout) or, when the file has no magic, a file that is completely one of the 2019
// layouts; the others name one keyframe layout of v1.1 or one 2019 layout.
enum class layout_choice : std::uint8_t { automatic, compact, full, june_2019, may_2019 };
// "compact", "full": stable names, as JSON reports and the index database hold them.
std::string_view layout_name(layout l) noexcept;
std::optional<layout> parse_layout_name(std::string_view name) noexcept;
// "auto", "compact", "full", "2019-06", "2019-05", as the --layout option takes them.
std::string_view layout_choice_name(layout_choice choice) noexcept;
std::optional<layout_choice> parse_layout_choice_name(std::string_view name) noexcept;

enum class curve_kind : std::uint8_t { float_curve, bool_curve };
enum class block : std::uint8_t { camera, hands, gaze };
enum class side : std::uint8_t { left, right };

enum class pose_channel : std::uint8_t {
    position_x,
    position_y,
    position_z,
    rotation_x,
    rotation_y,
    rotation_z,
    rotation_w
};
enum class ray_channel : std::uint8_t {
    origin_x,
    origin_y,
    origin_z,
    direction_x,
    direction_y,
    direction_z
};
// In file order.
enum class hand_state : std::uint8_t { left_tracked, right_tracked, left_pinching, right_pinching };

// MRTK's TrackedHandJoint, in file order.
enum class joint : std::uint8_t {
    none,
    wrist,
    palm,
    thumb_metacarpal,
    thumb_proximal,
    thumb_distal,
    thumb_tip,
    index_metacarpal,
    index_knuckle,
    index_middle,
    index_distal,
    index_tip,
    middle_metacarpal,
    middle_knuckle,
    middle_middle,
    middle_distal,
    middle_tip,
    ring_metacarpal,
    ring_knuckle,
    ring_middle,
    ring_distal,
    ring_tip,
    pinky_metacarpal,
    pinky_knuckle,
    pinky_middle,
    pinky_distal,
    pinky_tip
};

inline constexpr std::size_t pose_channel_count = 7;
inline constexpr std::size_t ray_channel_count = 6;
inline constexpr std::size_t hand_state_count = 4;
inline constexpr std::size_t joint_count = 27;

// The joint names as FORMAT.md and MRTK spell them (used in curve paths).
inline constexpr std::array<std::string_view, joint_count> joint_names = {"None",
                                                                          "Wrist",
                                                                          "Palm",
                                                                          "ThumbMetacarpalJoint",
                                                                          "ThumbProximalJoint",
                                                                          "ThumbDistalJoint",
                                                                          "ThumbTip",
                                                                          "IndexMetacarpal",
                                                                          "IndexKnuckle",
                                                                          "IndexMiddleJoint",
                                                                          "IndexDistalJoint",
                                                                          "IndexTip",
                                                                          "MiddleMetacarpal",
                                                                          "MiddleKnuckle",
                                                                          "MiddleMiddleJoint",
                                                                          "MiddleDistalJoint",
                                                                          "MiddleTip",
                                                                          "RingMetacarpal",
                                                                          "RingKnuckle",
                                                                          "RingMiddleJoint",
                                                                          "RingDistalJoint",
                                                                          "RingTip",
                                                                          "PinkyMetacarpal",
                                                                          "PinkyKnuckle",
                                                                          "PinkyMiddleJoint",
                                                                          "PinkyDistalJoint",
                                                                          "PinkyTip"};

// Every curve a file can hold, numbered in the order of a v1.1 file with all three blocks:
// camera (0-6), hand states (7-10), left joints (11-199), right joints (200-388), gaze (389-394).
// A v1.0 file holds ids 0-388 in order; a v1.1 file a subset in order.
enum class curve_id : std::uint16_t {};
inline constexpr std::size_t curve_id_count = 395;
inline constexpr std::size_t v10_curve_count = 389;

inline constexpr std::size_t camera_first = 0;
inline constexpr std::size_t hand_state_first = 7;
inline constexpr std::size_t left_joint_first = 11;
inline constexpr std::size_t right_joint_first =
    left_joint_first + joint_count * pose_channel_count;
inline constexpr std::size_t gaze_first = right_joint_first + joint_count * pose_channel_count;

constexpr std::size_t to_index(curve_id id) noexcept {
    return static_cast<std::size_t>(id);
}

constexpr curve_id camera_curve(pose_channel c) noexcept {
    return curve_id(camera_first + static_cast<std::size_t>(c));
}
constexpr curve_id hand_state_curve(hand_state s) noexcept {
    return curve_id(hand_state_first + static_cast<std::size_t>(s));
}
constexpr curve_id joint_curve(side s, joint j, pose_channel c) noexcept {
    return curve_id((s == side::left ? left_joint_first : right_joint_first) +
                    static_cast<std::size_t>(j) * pose_channel_count + static_cast<std::size_t>(c));
}
constexpr curve_id gaze_curve(ray_channel c) noexcept {
    return curve_id(gaze_first + static_cast<std::size_t>(c));
}

constexpr block block_of(curve_id id) noexcept {
    if (to_index(id) < hand_state_first) return block::camera;
    if (to_index(id) < gaze_first) return block::hands;
    return block::gaze;
}
constexpr curve_kind kind_of(curve_id id) noexcept {
    return to_index(id) >= hand_state_first && to_index(id) < left_joint_first
               ? curve_kind::bool_curve
               : curve_kind::float_curve;
}

// The stable dotted path of a curve, such as `hand.left.joint.IndexTip.position.x`.
std::string_view curve_path(curve_id id) noexcept;
// The curve a path names, if any (exact match).
std::optional<curve_id> find_curve(std::string_view path) noexcept;
// True when `path` matches `glob`; `*` matches any run of characters within one dotted
// component, `**` any run including dots, `?` one character.
bool path_matches(std::string_view glob, std::string_view path) noexcept;

// Which blocks a file holds (v1.0 files: camera and hands).
struct block_flags {
    bool camera = true;
    bool hands = true;
    bool gaze = true;
    friend constexpr bool operator==(const block_flags&, const block_flags&) = default;
};

// How many curves a file with these blocks holds.
constexpr std::size_t curve_count(block_flags f) noexcept {
    return (f.camera ? pose_channel_count : 0) +
           (f.hands ? hand_state_count + 2 * joint_count * pose_channel_count : 0) +
           (f.gaze ? ray_channel_count : 0);
}

// Whether a file with these blocks holds the curve.
constexpr bool has_curve(block_flags f, curve_id id) noexcept {
    switch (block_of(id)) {
        case block::camera:
            return f.camera;
        case block::hands:
            return f.hands;
        case block::gaze:
            return f.gaze;
    }
    return false;
}

// The id of the curve at `file_index` of a v1.x file (or a June 2019 one) with these blocks;
// file_index < curve_count(f).
constexpr curve_id curve_at(block_flags f, std::size_t file_index) noexcept {
    std::size_t i = file_index;
    if (f.camera) {
        if (i < pose_channel_count) return curve_id(camera_first + i);
        i -= pose_channel_count;
    }
    if (f.hands) {
        constexpr std::size_t hands = gaze_first - hand_state_first;
        if (i < hands) return curve_id(hand_state_first + i);
        i -= hands;
    }
    return curve_id(gaze_first + i);
}

// The id of the curve at `file_index` < v10_curve_count of a May 2019 file: the hands block
// (hand states, left joints, right joints) first, then the camera.
constexpr curve_id may_2019_curve_at(std::size_t file_index) noexcept {
    constexpr std::size_t hands = gaze_first - hand_state_first;
    return file_index < hands ? curve_id(hand_state_first + file_index)
                              : curve_id(camera_first + file_index - hands);
}

}  // namespace inputanim
