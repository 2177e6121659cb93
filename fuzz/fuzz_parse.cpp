// Raw bytes through the pull parser under every layout choice: every curve, keyframe field and
// marker is read, every view stays inside the bytes, and tight limits only cut the walk short.
#include <cstdint>
#include <string_view>
#include <vector>

#include "invariants.hpp"

namespace inputanim::fuzz {
namespace {

// Reads keep their results here so that the compiler cannot drop them.
volatile std::uint32_t sink = 0;

std::uint32_t bits(float f) noexcept {
    return std::bit_cast<std::uint32_t>(f);
}

bool inside(std::span<const std::byte> bytes, const void* p, std::uint64_t n) noexcept {
    const auto* b = static_cast<const std::byte*>(p);
    return b >= bytes.data() && static_cast<std::uint64_t>(b - bytes.data()) <= bytes.size() &&
           n <= bytes.size() - static_cast<std::uint64_t>(b - bytes.data());
}

void read_every_field(const keyframes_view& keys) {
    std::uint32_t acc = 0;
    for (const keyframe_view k : keys) {
        acc ^= bits(k.time()) + bits(k.value()) + bits(k.in_tangent()) + bits(k.out_tangent()) +
               bits(k.in_weight()) + bits(k.out_weight()) +
               static_cast<std::uint32_t>(k.weighted_mode_raw());
        FUZZ_CHECK(k.has_tangents() == (keys.stride() == full_keyframe_size));
    }
    FUZZ_CHECK(static_cast<std::size_t>(keys.end() - keys.begin()) == keys.size());
    if (!keys.empty()) {
        FUZZ_CHECK(keys.front().data() == keys.data());
        FUZZ_CHECK(keys.back().data() ==
                   keys.begin()[static_cast<std::ptrdiff_t>(keys.size()) - 1].data());
    }
    sink = sink + acc;
}

bool has_magic(std::span<const std::byte> bytes) noexcept {
    if (bytes.size() < 8) return false;
    std::uint64_t v = 0;
    for (std::size_t i = 0; i < 8; ++i) v |= std::to_integer<std::uint64_t>(bytes[i]) << (8 * i);
    return v == file_magic;
}

struct markers_seen {
    std::vector<marker_view> list;
};

// Walks with every check the reader promises; returns the error it ends with.
walk_result checked_walk(std::span<const std::byte> bytes, const read_options& options,
                         markers_seen* seen) {
    reader r(bytes, options);
    walk_result w;
    const error& opened = r.open();
    if (opened) {
        check_error_shape(opened, bytes, options.limits);
        FUZZ_CHECK(opened.place == error_place::header || opened.place == error_place::none);
        if (options.layout == layout_choice::automatic && bytes.size() >= 8 && !has_magic(bytes) &&
            opened.code != errc::limit_exceeded) {
            FUZZ_CHECK(opened.code == errc::bad_magic && opened.offset == 0);
        }
        FUZZ_CHECK(r.next() == item::error && r.error() == opened);
        w.error = opened;
        return w;
    }
    w.opened = true;
    const file_header& h = r.header();
    w.header = h;
    FUZZ_CHECK(h.curve_count == curve_count(h.blocks));
    std::uint64_t expected = 0;
    if (h.edition == edition::v1) {
        FUZZ_CHECK(h.major == 1 && (h.minor == 0 || h.minor == 1));
        FUZZ_CHECK(has_magic(bytes));
        FUZZ_CHECK(options.layout != layout_choice::june_2019 &&
                   options.layout != layout_choice::may_2019);
        FUZZ_CHECK(h.bool_key_size == bool_keyframe_size);
        if (h.minor == 0) {
            FUZZ_CHECK(h.layout == layout::full && h.blocks == (block_flags{true, true, false}));
        } else if (options.layout != layout_choice::automatic) {
            FUZZ_CHECK((h.layout == layout::compact) == (options.layout == layout_choice::compact));
        }
        expected = h.minor == 0 ? header_size : header_size + 3;
    } else {
        // A 2019 layout: asked for by name, or a file without the magic that is wholly one.
        FUZZ_CHECK(h.major == 0 && h.minor == 0 && h.layout == layout::full);
        FUZZ_CHECK(h.blocks == (block_flags{true, true, false}));
        FUZZ_CHECK(h.bool_key_size == bool_keyframe_size ||
                   (h.edition == edition::may_2019 && h.bool_key_size == full_keyframe_size));
        if (options.layout == layout_choice::automatic) {
            FUZZ_CHECK(!has_magic(bytes));
        } else {
            FUZZ_CHECK(options.layout == (h.edition == edition::june_2019
                                              ? layout_choice::june_2019
                                              : layout_choice::may_2019));
        }
    }
    FUZZ_CHECK(r.position() == expected);
    for (;;) {
        const item it = r.next();
        if (it == item::curve) {
            const curve_view& c = r.curve();
            const curve_id id = h.edition == edition::may_2019 ? may_2019_curve_at(w.curves)
                                                               : curve_at(h.blocks, w.curves);
            FUZZ_CHECK(c.index == w.curves && c.id == id);
            FUZZ_CHECK(c.kind == kind_of(c.id) && c.offset == expected);
            FUZZ_CHECK(c.path() == curve_path(c.id) && !c.path().empty());
            FUZZ_CHECK(c.size() <= options.limits.max_keyframes_per_curve);
            const std::size_t stride = c.kind == curve_kind::bool_curve ? h.bool_key_size
                                       : h.layout == layout::full       ? 28
                                                                        : 8;
            FUZZ_CHECK(c.keys.stride() == stride);
            FUZZ_CHECK(c.keys.data() == bytes.data() + c.offset + curve_header_size);
            FUZZ_CHECK(inside(bytes, c.keys.data(), std::uint64_t{c.keys.size()} * stride));
            FUZZ_CHECK(c.keyframe_offset(c.keys.size()) == r.position());
            read_every_field(c.keys);
            expected = r.position();
            ++w.curves;
            w.keyframes += c.size();
            FUZZ_CHECK(r.total_keyframes() == w.keyframes);
        } else if (it == item::marker) {
            FUZZ_CHECK(w.curves == h.curve_count && r.has_marker_list());
            const marker_view& m = r.marker();
            FUZZ_CHECK(m.index == w.markers && m.index < r.marker_count());
            FUZZ_CHECK(inside(bytes, m.name.data(), m.name.size()));
            FUZZ_CHECK(m.name.size() <= options.limits.max_marker_name_bytes);
            FUZZ_CHECK(m.offset >= expected);
            std::uint32_t acc = bits(m.time);
            for (char ch : m.name) acc = acc * 31 + static_cast<unsigned char>(ch);
            sink = sink + acc;
            if (seen != nullptr) seen->list.push_back(m);
            expected = r.position();
            ++w.markers;
        } else if (it == item::end) {
            FUZZ_CHECK(w.curves == h.curve_count && r.position() == bytes.size());
            FUZZ_CHECK(!r.has_marker_list() || w.markers == r.marker_count());
            // May 2019's trailer is no marker list.
            FUZZ_CHECK(h.edition != edition::may_2019 || !r.has_marker_list());
            FUZZ_CHECK(r.next() == item::end && !r.error());
            break;
        } else {
            check_error_shape(r.error(), bytes, options.limits);
            FUZZ_CHECK(is_structural(r.error().code));
            FUZZ_CHECK(r.error().offset >= expected);
            FUZZ_CHECK(r.next() == item::error);
            w.error = r.error();
            break;
        }
    }
    if (r.has_marker_list()) w.marker_list = r.marker_count();
    // Detection never guesses: a file without the magic read under `automatic` is wholly a 2019
    // layout (or stopped by a limit), or bad_magic at 0 (checked where opening fails).
    if (options.layout == layout_choice::automatic && bytes.size() >= 8 && !has_magic(bytes)) {
        FUZZ_CHECK(h.edition != edition::v1);
        FUZZ_CHECK(!w.error || w.error.code == errc::limit_exceeded);
    }
    return w;
}

// The recording table over a sound file agrees with the walk: same curves, same markers.
void check_recording(std::span<const std::byte> bytes, layout_choice choice,
                     const markers_seen& seen) {
    recording rec;
    FUZZ_CHECK_OK(rec.open(bytes, read_options{choice}));
    for (const curve_view& c : rec.curves()) {
        FUZZ_CHECK(rec.find(c.id) == &c);
        FUZZ_CHECK(rec.find(c.path()) == &c);
    }
    std::size_t i = 0;
    for (const marker_view& m : rec.markers()) {
        FUZZ_CHECK(i < seen.list.size());
        const marker_view& expected = seen.list[i++];
        FUZZ_CHECK(m.index == expected.index && m.offset == expected.offset);
        FUZZ_CHECK(same_bits(m.time, expected.time));
        FUZZ_CHECK(m.name.data() == expected.name.data() && m.name.size() == expected.name.size());
    }
    FUZZ_CHECK(i == seen.list.size());
}

// Limits only end the walk early, with limit_exceeded, at or before the unlimited walk's end.
void check_limits(std::span<const std::byte> bytes, layout_choice choice,
                  const walk_result& unlimited) {
    limits tight;
    tight.max_keyframes_per_curve = 3;
    tight.max_total_keyframes = 40;
    tight.max_markers = 2;
    tight.max_marker_name_bytes = 5;
    const walk_result w = checked_walk(bytes, read_options{choice, tight}, nullptr);
    FUZZ_CHECK(w.curves <= unlimited.curves && w.markers <= unlimited.markers);
    if (w.error != unlimited.error) {
        FUZZ_CHECK(w.error.code == errc::limit_exceeded);
        FUZZ_CHECK(!unlimited.error || unlimited.error.offset >= w.error.offset);
    }

    // The byte ceiling is checked before anything else.
    if (bytes.empty()) return;
    limits ceiling;
    ceiling.max_bytes = bytes.size() - 1;
    const walk_result capped = checked_walk(bytes, read_options{choice, ceiling}, nullptr);
    FUZZ_CHECK(capped.error.code == errc::limit_exceeded &&
               capped.error.limit == limit_kind::bytes);
}

// `bytes` walked under every layout choice, unlimited and within tight limits.
void check_parsing(std::span<const std::byte> bytes) {
    for (const layout_choice choice : all_layout_choices) {
        markers_seen seen;
        const walk_result w = checked_walk(bytes, read_options{choice}, &seen);
        if (!w.error) check_recording(bytes, choice, seen);
        // Under `automatic` and `2019-05` the limits may change what is detected (a limit counts as
        // sound when choosing between layouts), and with it the error.
        if (choice != layout_choice::automatic && choice != layout_choice::may_2019) {
            check_limits(bytes, choice, w);
        }
    }
}

}  // namespace
}  // namespace inputanim::fuzz

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    inputanim::fuzz::check_parsing(inputanim::fuzz::as_bytes(data, size));
    return 0;
}
