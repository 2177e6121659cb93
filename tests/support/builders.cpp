#include "support/builders.hpp"

#include <cstring>
#include <fstream>
#include <iterator>

namespace inputanim::testing {

const char* shape_name(shape s) {
    switch (s) {
        case shape::v10:
            return "v10";
        case shape::v11_compact:
            return "v11_compact";
        case shape::v11_full:
            return "v11_full";
    }
    return "?";
}

model empty_model(shape s, bool with_markers) {
    model m;
    m.minor = s == shape::v10 ? 0 : 1;
    m.layout = s == shape::v11_compact ? layout::compact : layout::full;
    m.blocks = s == shape::v10 ? block_flags{true, true, false} : block_flags{};
    if (!with_markers) m.markers.reset();
    return m;
}

model small_model(shape s, bool with_markers) {
    model m = empty_model(s, false);
    const bool full = s != shape::v11_compact;
    auto add_keys = [&](curve_id id, float base) {
        for (int i = 0; i < 4; ++i) {
            keyframe k{0.25f * static_cast<float>(i), base + static_cast<float>(i)};
            if (full) {
                k.in_tangent = 0.5f * static_cast<float>(i);
                k.out_tangent = -0.25f;
                k.in_weight = 1.0f / 3.0f;
                k.out_weight = 0.5f;
                k.weighted_mode = i % 4;
            }
            m[id].keys.push_back(k);
        }
    };
    for (std::size_t c = 0; c < pose_channel_count; ++c) {
        add_keys(camera_curve(static_cast<pose_channel>(c)), static_cast<float>(c));
        add_keys(joint_curve(side::left, joint::wrist, static_cast<pose_channel>(c)), 0.1f);
    }
    // Unit quaternions for the camera so that validation has no warning.
    for (pose_channel c :
         {pose_channel::rotation_x, pose_channel::rotation_y, pose_channel::rotation_z}) {
        for (keyframe& k : m[camera_curve(c)].keys) k.value = 0.0f;
    }
    for (keyframe& k : m[camera_curve(pose_channel::rotation_w)].keys) k.value = 1.0f;
    m[hand_state_curve(hand_state::left_tracked)].keys = {{0.0f, 1.0f}, {0.5f, 0.0f}};
    m[hand_state_curve(hand_state::right_pinching)].keys = {{0.1f, 0.0f}};
    if (s != shape::v10) {
        for (std::size_t c = 0; c < ray_channel_count; ++c) {
            add_keys(gaze_curve(static_cast<ray_channel>(c)), 2.0f);
        }
    }
    if (with_markers) {
        m.markers = std::vector<marker>{{0.25f, "start"}, {0.5f, "gr\xc3\xbc\xc3\x9f"}};
    }
    return m;
}

bytes small_file(shape s, bool with_markers) {
    return write(small_model(s, with_markers));
}

namespace {
block_flags blocks_of(const model& m) {
    return m.minor == 0 ? block_flags{true, true, false} : m.blocks;
}
std::size_t stride_of(const model& m, curve_id id) {
    const bool full = m.minor == 0 || m.layout == layout::full;
    return kind_of(id) == curve_kind::float_curve && full ? full_keyframe_size : 8;
}
}  // namespace

std::size_t first_curve_offset(const model& m) {
    return m.minor == 0 ? 16 : 19;
}

std::size_t curve_offset(const model& m, std::size_t file_index) {
    std::size_t off = first_curve_offset(m);
    const block_flags b = blocks_of(m);
    for (std::size_t i = 0; i < file_index; ++i) {
        const curve_id id = curve_at(b, i);
        off += curve_header_size + m[id].keys.size() * stride_of(m, id);
    }
    return off;
}

std::size_t marker_list_offset(const model& m) {
    return curve_offset(m, curve_count(blocks_of(m)));
}

void put_i32(bytes& b, std::size_t offset, std::int32_t v) {
    for (int i = 0; i < 4; ++i) {
        b.at(offset + i) =
            static_cast<std::byte>((static_cast<std::uint32_t>(v) >> (8 * i)) & 0xff);
    }
}

void put_f32(bytes& b, std::size_t offset, float v) {
    std::uint32_t u;
    std::memcpy(&u, &v, 4);
    put_i32(b, offset, static_cast<std::int32_t>(u));
}

std::int32_t get_i32(const bytes& b, std::size_t offset) {
    std::uint32_t u = 0;
    for (int i = 0; i < 4; ++i) u |= std::to_integer<std::uint32_t>(b.at(offset + i)) << (8 * i);
    return static_cast<std::int32_t>(u);
}

std::span<const std::byte> view(const bytes& b) {
    return {b.data(), b.size()};
}

std::filesystem::path recordings_dir() {
    return INPUTANIM_TEST_RECORDINGS_DIR;
}

std::string recording_test_name(const std::string& file_name) {
    std::string name = file_name.substr(file_name.find('-') + 1, 15);
    for (char& c : name) {
        if (c == '-') c = '_';
    }
    return "at_" + name;
}

std::optional<bytes> real_recording(const std::string& name) {
    std::ifstream in(recordings_dir() / name, std::ios::binary);
    if (!in) return std::nullopt;
    const std::vector<char> body((std::istreambuf_iterator<char>(in)),
                                 std::istreambuf_iterator<char>());
    bytes out(body.size());
    std::memcpy(out.data(), body.data(), body.size());
    return out;
}

std::optional<bytes> june_recording(const std::string& name) {
    std::optional<bytes> body = real_recording(name);
    if (!body) return std::nullopt;
    bytes out = {std::byte{0xc6}, std::byte{0x42}, std::byte{0x9e}, std::byte{0x0f},
                 std::byte{0x6e}, std::byte{0xaf}, std::byte{0x8f}, std::byte{0x6a},
                 std::byte{0x01}, std::byte{0},    std::byte{0},    std::byte{0},
                 std::byte{0},    std::byte{0},    std::byte{0},    std::byte{0}};
    out.insert(out.end(), body->begin(), body->end());
    return out;
}

bytes formatter_trailer() {
    // The prefix every real file starts its trailer with; the rest is left unread by readers.
    bytes t = {std::byte{0x00}, std::byte{0x01}, std::byte{0x00}, std::byte{0x00}, std::byte{0x00},
               std::byte{0xff}, std::byte{0xff}, std::byte{0xff}, std::byte{0xff}, std::byte{0x01},
               std::byte{0x00}, std::byte{0x00}, std::byte{0x00}, std::byte{0x00}, std::byte{0x00},
               std::byte{0x00}, std::byte{0x00}};
    t.resize(523, std::byte{0x5a});
    t.push_back(std::byte{0x0b});
    return t;
}

namespace {

void append_i32(bytes& b, std::int32_t v) {
    b.resize(b.size() + 4);
    put_i32(b, b.size() - 4, v);
}

void append_f32(bytes& b, float v) {
    b.resize(b.size() + 4);
    put_f32(b, b.size() - 4, v);
}

}  // namespace

bytes write_2019(const model& m, edition e, std::size_t bool_key_size) {
    model v10 = m;
    v10.major = 1;
    v10.minor = 0;
    if (e == edition::june_2019) {
        const bytes file = write(v10);
        return bytes(file.begin() + static_cast<std::ptrdiff_t>(header_size), file.end());
    }
    bytes out;
    for (std::size_t i = 0; i < v10_curve_count; ++i) {
        const curve_id id = may_2019_curve_at(i);
        const curve& c = m[id];
        append_i32(out, c.pre_wrap);
        append_i32(out, c.post_wrap);
        append_i32(out, static_cast<std::int32_t>(c.keys.size()));
        const bool narrow = kind_of(id) == curve_kind::bool_curve && bool_key_size == 8;
        for (const keyframe& k : c.keys) {
            append_f32(out, k.time);
            append_f32(out, k.value);
            if (narrow) continue;
            append_f32(out, k.in_tangent);
            append_f32(out, k.out_tangent);
            append_f32(out, k.in_weight);
            append_f32(out, k.out_weight);
            append_i32(out, k.weighted_mode);
        }
    }
    const bytes trailer = formatter_trailer();
    out.insert(out.end(), trailer.begin(), trailer.end());
    return out;
}

std::size_t may_curve_offset(const model& m, std::size_t file_index, std::size_t bool_key_size) {
    std::size_t at = 0;
    for (std::size_t i = 0; i < file_index; ++i) {
        const curve_id id = may_2019_curve_at(i);
        const std::size_t stride =
            kind_of(id) == curve_kind::bool_curve ? bool_key_size : full_keyframe_size;
        at += curve_header_size + m[id].keys.size() * stride;
    }
    return at;
}

std::string write_bytes(const std::filesystem::path& p, const bytes& b) {
    std::ofstream out(p, std::ios::binary);
    out.write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
    return p.string();
}

}  // namespace inputanim::testing
