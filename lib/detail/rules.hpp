// Every rule of FORMAT.md sections 3 and 6, once: plain functions over decoded fields that say
// what is wrong (a code, and where within the field) or nothing. The pull reader (reader.cpp),
// the push walker (stream.cpp) and the content checks (validate) call these and differ only in
// how the bytes reach them; kernels.hpp holds the proven-equal vector forms of check_keyframe.
#pragma once

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "detail/load.hpp"
#include "inputanim/error.hpp"
#include "inputanim/format.hpp"
#include "inputanim/reader.hpp"
#include "inputanim/validate.hpp"

namespace inputanim::detail {

// What a rule found: ok, or the code, the offset of the offending field (from the start of what
// the rule was given) and, for limit_exceeded, the limit passed.
struct fault {
    errc code = errc::ok;
    std::uint64_t offset = 0;
    limit_kind limit = limit_kind::none;

    explicit operator bool() const noexcept { return code != errc::ok; }
};

// The configured byte ceiling, checked before anything else is looked at.
constexpr fault check_size(std::uint64_t size, const limits& lim) noexcept {
    if (size > lim.max_bytes) return {errc::limit_exceeded, lim.max_bytes, limit_kind::bytes};
    return {};
}

// The header (section 2) and the v1.1 flags, from the first `n` bytes of the file at `p`.
struct header_check {
    // A fault in the bytes given; else, when `need` > n, the header is not whole: `need` bytes
    // are needed to go on, and `missing` is where the absent field starts (what `truncated`
    // reports if the file ends there).
    fault error{};
    std::size_t need = 0;
    std::uint64_t missing = 0;
    // When whole: the version, the blocks, and where the curves start (16 or 19).
    int minor = 0;
    block_flags blocks{};
    std::size_t size = 0;

    bool whole() const noexcept { return !error && size != 0; }
};
inline header_check check_header(const std::byte* p, std::size_t n) noexcept {
    header_check h;
    const auto more = [&](std::size_t need, std::uint64_t missing) {
        h.need = need;
        h.missing = missing;
        return h;
    };
    if (n < 8) return more(8, 0);
    if (load_u64_le(p) != file_magic) return h.error = {errc::bad_magic, 0}, h;
    if (n < header_size) return more(header_size, 8);
    const std::int32_t major = load_i32_le(p + 8);
    const std::int32_t minor = load_i32_le(p + 12);
    if (major != 1 || (minor != 0 && minor != 1))
        return h.error = {errc::unsupported_version, 8}, h;
    h.minor = minor;
    if (minor == 0) {
        h.blocks = block_flags{true, true, false};
        h.size = header_size;
        return h;
    }
    if (n < v11_flags_offset + 3) return more(v11_flags_offset + 3, v11_flags_offset);
    bool flags[3];
    for (std::size_t i = 0; i < 3; ++i) {
        const auto b = std::to_integer<std::uint8_t>(p[v11_flags_offset + i]);
        if (b > 1) return h.error = {errc::bad_flag, v11_flags_offset + i}, h;
        flags[i] = b == 1;
    }
    h.blocks = block_flags{flags[0], flags[1], flags[2]};
    h.size = v11_flags_offset + 3;
    return h;
}

// Unity WrapMode values.
constexpr bool valid_wrap_mode(std::int32_t m) noexcept {
    return m == 0 || m == 1 || m == 2 || m == 4 || m == 8;
}
// FORMAT.md section 9: under `automatic`, a file whose first 8 bytes (at `p`, whole) are not the
// magic may be a 2019 layout, which begins with its first curve's two wrap modes; a file whose
// walks as each 2019 layout all fail is `not_2019`.
inline bool may_be_2019(const header_check& h, const std::byte* p, layout_choice c) noexcept {
    return h.error.code == errc::bad_magic && c == layout_choice::automatic &&
           valid_wrap_mode(load_i32_le(p)) && valid_wrap_mode(load_i32_le(p + 4));
}
inline constexpr fault not_2019{errc::bad_magic, 0};
// A configured limit, which a walk detecting a 2019 layout defers (detail::layout_walk).
constexpr bool is_limit(const fault& f) noexcept {
    return f.code == errc::limit_exceeded;
}

// The bytes of one keyframe of a curve of `kind` under `lay`.
constexpr std::uint8_t keyframe_stride(curve_kind kind, layout lay) noexcept {
    return kind == curve_kind::float_curve && lay == layout::full ? full_keyframe_size
                                                                  : compact_keyframe_size;
}

// The bytes of one keyframe of a curve of `kind` in a file with header `h`.
constexpr std::uint8_t keyframe_stride(const file_header& h, curve_kind kind) noexcept {
    return kind == curve_kind::bool_curve ? h.bool_key_size : keyframe_stride(kind, h.layout);
}
// The curve at `file_index` < h.curve_count of a file with header `h`.
constexpr curve_id curve_in_file(const file_header& h, std::size_t file_index) noexcept {
    return h.edition == edition::may_2019 ? may_2019_curve_at(file_index)
                                          : curve_at(h.blocks, file_index);
}
// What a 2019 file holds (FORMAT.md section 9): v1.0's 389 curves, full keyframes, no header.
constexpr file_header header_2019(edition e, std::uint8_t bool_key_size) noexcept {
    file_header h;
    h.edition = e;
    h.layout = layout::full;
    h.blocks = block_flags{true, true, false};
    h.curve_count = static_cast<std::uint16_t>(v10_curve_count);
    h.bool_key_size = bool_key_size;
    return h;
}
// A curve header (pre-wrap, post-wrap, count) given `keys_before` keyframes in the curves before
// it; offsets are within the 12-byte header. Its keyframes' fit is keys_fit's.
inline fault check_curve_header(const std::byte* p, const limits& lim,
                                std::uint64_t keys_before) noexcept {
    if (!valid_wrap_mode(load_i32_le(p))) return {errc::bad_wrap_mode, 0};
    if (!valid_wrap_mode(load_i32_le(p + 4))) return {errc::bad_wrap_mode, 4};
    const std::int32_t count = load_i32_le(p + 8);
    if (count < 0) return {errc::negative_count, 8};
    const auto n = static_cast<std::uint32_t>(count);
    if (n > lim.max_keyframes_per_curve) {
        return {errc::limit_exceeded, 8, limit_kind::keyframes_per_curve};
    }
    if (n > lim.max_total_keyframes - keys_before) {
        return {errc::limit_exceeded, 8, limit_kind::total_keyframes};
    }
    return {};
}
// The count of a curve header that passed check_curve_header.
inline std::uint32_t curve_key_count(const std::byte* p) noexcept {
    return static_cast<std::uint32_t>(load_i32_le(p + 8));
}
// `n` keyframes of `stride` bytes fit in `left` bytes. n < 2^31 and stride <= 28, so the product
// cannot overflow 64 bits.
constexpr bool keys_fit(std::uint32_t n, std::uint8_t stride, std::uint64_t left) noexcept {
    return std::uint64_t{n} * stride <= left;
}

// The marker list's count (section 5), at offset 0 of `p`.
inline fault check_marker_count(const std::byte* p, const limits& lim) noexcept {
    const std::int32_t count = load_i32_le(p);
    if (count < 0) return {errc::negative_count, 0};
    if (static_cast<std::uint32_t>(count) > lim.max_markers) {
        return {errc::limit_exceeded, 0, limit_kind::markers};
    }
    return {};
}

// A marker name's complete 7-bit encoded length, in order: bad_marker above 2^31-1, then the
// configured limit; offsets are the length field's.
constexpr fault check_name_length(std::uint64_t length, const limits& lim) noexcept {
    if (length > 0x7fffffffu) return {errc::bad_marker, 0};
    if (length > lim.max_marker_name_bytes) {
        return {errc::limit_exceeded, 0, limit_kind::marker_name_bytes};
    }
    return {};
}

// The May 2019 trailer (FORMAT.md section 9): a .NET BinaryFormatter stream holding the marker
// list, which is checked and never interpreted: its first 17 bytes, then anything, and its last
// byte (the file's) 0x0b. Offsets are from the trailer's first byte.
inline constexpr std::array<std::uint8_t, 17> formatter_prefix = {
    0x00, 0x01, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff,
    0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00};
inline constexpr std::uint8_t formatter_end = 0x0b;
// Byte `k` < 17 of the trailer.
constexpr fault check_formatter_byte(std::size_t k, std::uint8_t b) noexcept {
    return b == formatter_prefix[k] ? fault{} : fault{errc::bad_marker, k};
}
// A trailer of `n` bytes whose prefix matched, ending with `last`.
constexpr fault check_formatter_end(std::uint64_t n, std::uint8_t last) noexcept {
    if (n <= formatter_prefix.size()) return {errc::truncated, n};
    if (last != formatter_end) return {errc::bad_marker, n - 1};
    return {};
}
// The whole trailer: the `n` bytes at `p`.
inline fault check_formatter_trailer(const std::byte* p, std::uint64_t n) noexcept {
    for (std::size_t k = 0; k < formatter_prefix.size(); ++k) {
        if (k == n) return {errc::truncated, k};
        if (const fault f = check_formatter_byte(k, std::to_integer<std::uint8_t>(p[k]))) return f;
    }
    return check_formatter_end(n, std::to_integer<std::uint8_t>(p[n - 1]));
}
// A 7-bit encoded length that runs past its fifth byte (length_decoder's too_long).
inline constexpr fault overlong_name_length{errc::bad_marker, 0};

// Level full's rules for a marker: its time, and its name (whether the name's bytes are valid
// UTF-8, from detail::utf8_decoder or valid_utf8_prefix).
inline errc check_marker_time(float t) noexcept {
    return std::isfinite(t) ? errc::ok : errc::non_finite;
}
constexpr errc check_marker_name(bool valid_utf8) noexcept {
    return valid_utf8 ? errc::ok : errc::bad_utf8;
}

// FORMAT.md section 3, layout `auto` on a v1.1 file: the first of compact, full under which the
// whole file is structurally sound; else the one whose walk got further, compact on a tie. A walk
// stopped by a configured limit counts as sound: a limit says nothing about the layout. `compact`
// and `full` are the errors the walks under each layout ended with; full's is looked at only when
// compact's walk was not sound (so a caller need not walk it then).
constexpr bool sound_walk(const error& end) noexcept {
    return end.code == errc::ok || end.code == errc::limit_exceeded;
}
constexpr layout choose_layout(const error& compact, const error& full) noexcept {
    if (sound_walk(compact)) return layout::compact;
    if (sound_walk(full)) return layout::full;
    return full.offset > compact.offset ? layout::full : layout::compact;
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

// What the count-based warnings need of one curve: whether the file has it, its key count and
// its first key's time.
struct curve_tally {
    bool present = false;
    std::uint32_t keys = 0;
    float first_time = 0.0f;
};

// The warnings that need only each curve's key count and first key time, in report order:
// negative_time for each curve in file order, then dropped_rotation_w for each rotation.
// `tally(id)` returns the curve's curve_tally.
// The non_unit_quaternion warning of rotation x, if any, comes from `units(x)` (a pointer, or
// null) right after that rotation's dropped_rotation_w.
template <class Tally, class Units>
void add_count_warnings(const file_header& h, Tally&& tally, Units&& units, report& r) noexcept {
    for (std::size_t i = 0; i < h.curve_count; ++i) {
        const curve_id id = curve_in_file(h, i);
        const curve_tally t = tally(id);
        if (t.present && t.keys > 0 && t.first_time < 0.0f) {
            add_warning(r, warning{warning_code::negative_time, id, 0, 1, t.first_time});
        }
    }
    for_each_rotation([&](curve_id x) {
        curve_tally q[4];
        for (std::size_t c = 0; c < 4; ++c) {
            q[c] = tally(curve_id(to_index(x) + c));
            if (!q[c].present) return;
        }
        if (dropped_rotation_w(q[0].keys, q[1].keys, q[2].keys, q[3].keys)) {
            add_warning(r, warning{warning_code::dropped_rotation_w, curve_id(to_index(x) + 3), 0,
                                   1, 0.0f});
        }
        if (const warning* w = units(x); w != nullptr && w->count > 0) add_warning(r, *w);
    });
}

}  // namespace inputanim::detail
