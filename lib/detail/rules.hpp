// Every rule of FORMAT.md sections 3 and 6, once: plain functions over decoded fields that say
// what is wrong (a code, and where within the field) or nothing; and the layout choice and walk
// plan of sections 3 and 9, once: which walks a layout choice tries, which walk wins, and what
// each curve of a walk is. The pull reader (reader.cpp), the push walker (stream.cpp, which also
// drives the streaming conversion and recording's walk by reads), validate's side-by-side walk
// and the content checks call these and differ only in how the bytes reach them; the encoder
// (writer.cpp) and the conversion ask here how a file is written. kernels.hpp holds the
// proven-equal vector forms of check_keyframe.
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

// What a v1 file of version `major`.`minor` holds (FORMAT.md section 2): v1.0 carries no block
// flags, so it holds camera and hands and no gaze, in full keyframes, whatever else is asked; any
// other version (1.1, or one a test writes to be refused) the blocks and the layout given. The one
// place that says it: the header check, the encoder, write(), convert and the generator (through
// inputanim::v1_header) all ask here.
constexpr file_header v1_header(int major, int minor, layout lay, block_flags blocks) noexcept {
    const bool v10 = major == 1 && minor == 0;
    file_header h;
    h.major = major;
    h.minor = minor;
    h.layout = v10 ? layout::full : lay;
    h.blocks = v10 ? block_flags{true, true, false} : blocks;
    h.curve_count = static_cast<std::uint16_t>(curve_count(h.blocks));
    return h;
}
// Whether a header written as `h` carries the three block flags after the version.
constexpr bool has_block_flags(const file_header& h) noexcept {
    return !(h.major == 1 && h.minor == 0);
}
// The bytes of the header `h` as a file holds them (section 2): the magic, the version, and the
// three block flags when has_block_flags(h). The one writing of a header: the encoder's.
struct encoded_header {
    std::array<std::byte, v11_flags_offset + 3> bytes{};
    std::size_t size = 0;
};
inline encoded_header encode_header(const file_header& h) noexcept {
    encoded_header e;
    store_u64_le(e.bytes.data(), file_magic);
    store_i32_le(e.bytes.data() + 8, h.major);
    store_i32_le(e.bytes.data() + 12, h.minor);
    e.size = header_size;
    if (has_block_flags(h)) {
        for (const bool flag : {h.blocks.camera, h.blocks.hands, h.blocks.gaze}) {
            e.bytes[e.size++] = std::byte{flag ? std::uint8_t{1} : std::uint8_t{0}};
        }
    }
    return e;
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
        h.blocks = detail::v1_header(1, 0, layout::full, {}).blocks;
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
constexpr bool is_limit(const error& e) noexcept {
    return e.code == errc::limit_exceeded;
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
// The bytes of one keyframe of curve `id` in a file with header `h`.
constexpr std::uint8_t stride_of(const file_header& h, curve_id id) noexcept {
    return keyframe_stride(h, kind_of(id));
}
// Whether the float curves of a file with header `h` hold full keyframes, which keep tangents,
// weights and the weighted mode.
constexpr bool full_float_keys(const file_header& h) noexcept {
    return keyframe_stride(h, curve_kind::float_curve) == full_keyframe_size;
}
// Whether keys of a curve of `kind`, `in_stride` bytes each, lose what shapes playback between
// them (tangents, weights, weighted mode) when written into a file with header `to`: full float
// keys into compact ones.
constexpr bool narrowing_drops_shape(curve_kind kind, std::size_t in_stride,
                                     const file_header& to) noexcept {
    return kind == curve_kind::float_curve && in_stride == full_keyframe_size &&
           !full_float_keys(to);
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
    h.blocks = detail::v1_header(1, 0, layout::full, {}).blocks;
    h.curve_count = static_cast<std::uint16_t>(v10_curve_count);
    h.bool_key_size = bool_key_size;
    return h;
}
// The largest count or length the format's Int32 fields hold, 2^31-1: a curve's key count, the
// marker count, a marker name's length (its 7-bit encoding reaches further). The encoder refuses
// more; a reader finds a count past it negative, and such a name length bad_marker.
inline constexpr std::uint32_t int32_max = 0x7fffffff;
// The key count of a curve header at `p` given `keys_before` keyframes in the curves before it;
// offsets are within the 12-byte header. Alone (with no limits), what a walk needs to find the
// next curve: the streaming conversion, which does not validate, checks no more.
inline fault check_curve_count(const std::byte* p, const limits& lim,
                               std::uint64_t keys_before) noexcept {
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
// A whole curve header (pre-wrap, post-wrap, count), as check_curve_count says. Its keyframes'
// fit is keys_fit's.
inline fault check_curve_header(const std::byte* p, const limits& lim,
                                std::uint64_t keys_before) noexcept {
    if (!valid_wrap_mode(load_i32_le(p))) return {errc::bad_wrap_mode, 0};
    if (!valid_wrap_mode(load_i32_le(p + 4))) return {errc::bad_wrap_mode, 4};
    return check_curve_count(p, lim, keys_before);
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
    if (length > int32_max) return {errc::bad_marker, 0};
    if (length > lim.max_marker_name_bytes) {
        return {errc::limit_exceeded, 0, limit_kind::marker_name_bytes};
    }
    return {};
}

// The bytes of a 7-bit encoded `length` in its shortest form, the one every writer (and the
// encoder) uses; a reader also takes longer forms.
constexpr std::uint64_t shortest_length_bytes(std::uint64_t length) noexcept {
    std::uint64_t bytes = 1;
    for (length >>= 7; length != 0; length >>= 7) ++bytes;
    return bytes;
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

// A layout a file can be written in (a caller's option).
constexpr bool known_layout(layout lay) noexcept {
    return lay == layout::compact || lay == layout::full;
}
// Whether a time `t`, shifted to `shifted`, passed the largest float: a time that was not finite
// before stays what it was (only level structure lets one through), and is no overflow.
inline bool shift_overflows(float t, float shifted) noexcept {
    return std::isfinite(t) && !std::isfinite(shifted);
}

// Level full's rules for a marker: its time, and its name (whether the name's bytes are valid
// UTF-8, from detail::utf8_decoder or valid_utf8_prefix).
inline errc check_marker_time(float t) noexcept {
    return std::isfinite(t) ? errc::ok : errc::non_finite;
}
constexpr errc check_marker_name(bool valid_utf8) noexcept {
    return valid_utf8 ? errc::ok : errc::bad_utf8;
}

// The walk under a header `h` (FORMAT.md sections 3 to 5 and 9), which the pull reader, the push
// walker and recording's walk by reads all step through: h.curve_count curves, each a 12-byte
// curve header and its keys, then the marker list, or for May 2019 the formatter trailer.
struct walk_curve {
    curve_id id{};
    curve_kind kind = curve_kind::float_curve;
    std::uint8_t stride = 0;
};
// The `i`th curve (< h.curve_count) of the walk under `h`.
constexpr walk_curve curve_of_walk(const file_header& h, std::size_t i) noexcept {
    const curve_id id = curve_in_file(h, i);
    return {id, kind_of(id), stride_of(h, id)};
}
// Whether the curves are followed by May 2019's trailer rather than a marker list.
constexpr bool ends_with_trailer(const file_header& h) noexcept {
    return h.edition == edition::may_2019;
}
// Whether a file under `h` whose bytes after its last curve are `left` ends there, without a
// marker list (section 5: the files the published page describes).
constexpr bool ends_after_curves(const file_header& h, std::uint64_t left) noexcept {
    return !ends_with_trailer(h) && left == 0;
}
// One curve of a walk over bytes in hand: its curve header at `p`, with `left` bytes from `p` to
// the end of the file, and its keys of `stride` bytes. Only the curve header is read, and only
// when it is whole. The fault (offset from `p`; keys that do not fit are `truncated` at the
// first key, index 0), else the key count and the bytes the curve takes.
struct curve_step {
    fault error{};
    std::int64_t index = -1;
    std::uint32_t keys = 0;
    std::uint64_t size = 0;
};
inline curve_step step_curve(const std::byte* p, std::uint64_t left, std::uint8_t stride,
                             const limits& lim, std::uint64_t keys_before) noexcept {
    if (left < curve_header_size) return {{errc::truncated, 0}};
    if (const fault f = check_curve_header(p, lim, keys_before)) return {f};
    const std::uint32_t n = curve_key_count(p);
    if (!keys_fit(n, stride, left - curve_header_size)) {
        return {{errc::truncated, curve_header_size}, 0};
    }
    return {{}, -1, n, curve_header_size + std::uint64_t{n} * stride};
}

// A walk a layout choice may take: the header it reads the file under, and where its first curve
// starts (the header's size; 0 for the 2019 layouts, which have none).
struct walk_start {
    file_header header{};
    std::uint64_t first_curve = 0;
};
// The walks a layout choice tries, in order of preference (FORMAT.md sections 3 and 9). Every
// decision between layouts is made here and in choose_walk; the walkers only walk.
// - a v1.0 file: full. A v1.1 file: `compact` or `full` as asked; under `automatic` compact,
//   then full.
// - `june_2019`: June 2019. `may_2019`: May 2019 with 8-byte bool keys, then with 28-byte ones.
// - `detecting`: a file without the magic under `automatic` (may_be_2019): June 2019, then May
//   2019 with 8-byte and with 28-byte bool keys. Only a walk sound to the file's end, whatever
//   the limits, is of the layout: the walks ignore the limits (the reader) or defer them (the
//   push walker), and the limits apply to the walk of the layout found. None sound is not_2019.
struct layout_candidates {
    std::array<walk_start, 3> starts{};
    std::uint8_t count = 0;
    bool detecting = false;
};
// A 2019 layout asked for by name (whatever the file's first bytes); no candidates for any other
// choice.
constexpr layout_candidates named_2019_candidates(layout_choice c) noexcept {
    layout_candidates l;
    if (c == layout_choice::june_2019) {
        l.starts[l.count++] = {header_2019(edition::june_2019, bool_keyframe_size), 0};
    } else if (c == layout_choice::may_2019) {
        l.starts[l.count++] = {header_2019(edition::may_2019, bool_keyframe_size), 0};
        l.starts[l.count++] = {header_2019(edition::may_2019, full_keyframe_size), 0};
    }
    return l;
}
// Any other choice, given the header check `h` of the file's first bytes at `p`: the 2019
// layouts to detect, or the v1 layouts of a whole header; none while the header is not whole or
// when it is wrong (h.error is then the file's error).
inline layout_candidates header_candidates(const header_check& h, const std::byte* p,
                                           layout_choice c) noexcept {
    layout_candidates l;
    if (may_be_2019(h, p, c)) {
        l.detecting = true;
        l.starts[l.count++] = {header_2019(edition::june_2019, bool_keyframe_size), 0};
        l.starts[l.count++] = {header_2019(edition::may_2019, bool_keyframe_size), 0};
        l.starts[l.count++] = {header_2019(edition::may_2019, full_keyframe_size), 0};
        return l;
    }
    if (!h.whole()) return l;
    file_header v1;
    v1.major = 1;
    v1.minor = h.minor;
    v1.blocks = h.blocks;
    v1.curve_count = static_cast<std::uint16_t>(curve_count(h.blocks));
    const auto add = [&](layout lay) {
        v1.layout = lay;
        l.starts[l.count++] = {v1, h.size};
    };
    if (h.minor == 0 || c == layout_choice::full) {
        add(layout::full);
    } else {
        add(layout::compact);
        if (c == layout_choice::automatic) add(layout::full);
    }
    return l;
}
// Both, for a file whose first `n` bytes (or all of them) are at `p`.
inline layout_candidates candidates(const std::byte* p, std::size_t n, layout_choice c) noexcept {
    const layout_candidates named = named_2019_candidates(c);
    return named.count > 0 ? named : header_candidates(check_header(p, n), p, c);
}

// The public may_be_2019: whether a file whose first bytes are the `n` at `p` (8 of them, or fewer
// when that is the whole file) would be detected as a 2019 layout under `automatic`.
inline bool may_be_2019(const std::byte* p, std::size_t n) noexcept {
    return n >= 8 && header_candidates(check_header(p, 8), p, layout_choice::automatic).detecting;
}
// The choice whose candidates read a file as it was read when it gave header `h`, without
// detecting again (the public choice_of): a v1.0 file has one candidate whatever the choice.
constexpr layout_choice choice_reading(const file_header& h) noexcept {
    switch (h.edition) {
        case edition::june_2019:
            return layout_choice::june_2019;
        case edition::may_2019:
            return layout_choice::may_2019;
        case edition::v1:
            break;
    }
    if (h.minor == 0) return layout_choice::automatic;
    return h.layout == layout::compact ? layout_choice::compact : layout_choice::full;
}

// FORMAT.md sections 3 and 9: which candidate a file is read as. A walk stopped by a configured
// limit counts as sound: a limit says nothing about the layout.
constexpr bool sound_walk(const error& end) noexcept {
    return end.code == errc::ok || end.code == errc::limit_exceeded;
}
// The first candidate whose walk is sound, in order of preference; else, unless detecting, the
// one whose walk got furthest, the earlier on a tie; else none (`count`). `end(i)` is the error
// the walk under candidate i ended with; it is asked in order and no further than needed (a
// caller need not walk the rest once one is sound), and not at all for a lone candidate outside
// detection, which is the choice whatever its walk.
template <class End>
constexpr std::size_t choose_walk(std::size_t count, bool detecting, End&& end) noexcept {
    if (count == 1 && !detecting) return 0;
    std::size_t best = count;
    std::uint64_t furthest = 0;
    for (std::size_t i = 0; i < count; ++i) {
        const error e = end(i);
        if (sound_walk(e)) return i;
        if (!detecting && (best == count || e.offset > furthest)) {
            best = i;
            furthest = e.offset;
        }
    }
    return best;
}
template <class End>
constexpr std::size_t choose_walk(const layout_candidates& c, End&& end) noexcept {
    return choose_walk(c.count, c.detecting, end);
}
// The first candidate whose walk `sound(i)` says is sound, walked in order of preference (none:
// `count`): choose_walk's choice whenever there is one, for a walker that takes only a sound walk
// and leaves every other file to the reader (recording's walk by reads).
template <class Sound>
constexpr std::size_t first_sound(const layout_candidates& c, Sound&& sound) noexcept {
    for (std::size_t i = 0; i < c.count; ++i) {
        if (sound(i)) return i;
    }
    return c.count;
}
// Whether a walker that takes the candidates one after another (validate's side-by-side walk)
// goes on to the next once it has walked the first `walked`, the last ending with `end`: while
// none was sound, as long as there is one.
constexpr bool walk_next(const layout_candidates& c, std::size_t walked,
                         const error& end) noexcept {
    return walked < c.count && !sound_walk(end);
}
// Whether choose_walk's answer is known while some walks are still under way, as the push walker
// runs them side by side: `failed(i)` says whether walk i has ended with a structural error,
// `end(i)`. A walk under way may still end sound, so the answer is known once the walks have
// failed in order up to one stopped by a limit (sound), or every walk has failed.
template <class Failed, class End>
constexpr bool walk_decided(std::size_t count, Failed&& failed, End&& end) noexcept {
    for (std::size_t i = 0; i < count; ++i) {
        if (!failed(i)) return false;
        if (sound_walk(end(i))) return true;
    }
    return true;
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

// MRTK's own full keyframe: tangents 0, weights 0, weighted mode Both, which plays exactly
// linearly, as a compact keyframe reads. A compact target holds any other full key only by
// changing how its curve plays (convert.hpp).
constexpr bool mrtk_linear(float in_tangent, float out_tangent, float in_weight, float out_weight,
                           std::int32_t weighted_mode) noexcept {
    return in_tangent == 0.0f && out_tangent == 0.0f && in_weight == 0.0f && out_weight == 0.0f &&
           weighted_mode == 3;
}

// The 20 bytes after time and value of MRTK's own full keyframe, as a file holds them: the one
// byte pattern of mrtk_linear (a zero tangent or weight may also be written as -0).
inline constexpr std::array<std::byte, 20> linear_key_tail = {
    std::byte{0}, std::byte{0}, std::byte{0}, std::byte{0}, std::byte{0},
    std::byte{0}, std::byte{0}, std::byte{0}, std::byte{0}, std::byte{0},
    std::byte{0}, std::byte{0}, std::byte{0}, std::byte{0}, std::byte{0},
    std::byte{0}, std::byte{3}, std::byte{0}, std::byte{0}, std::byte{0}};

// mrtk_linear of the full keyframe at `p` (28 bytes).
inline bool mrtk_linear_key(const std::byte* p) noexcept {
    return mrtk_linear(load_f32_le(p + 8), load_f32_le(p + 12), load_f32_le(p + 16),
                       load_f32_le(p + 20), load_i32_le(p + 24));
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
