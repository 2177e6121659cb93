// What every harness asserts about the library, shared so that the raw-bytes harnesses and the
// structure-aware ones check the same facts. A broken invariant prints where and aborts, which
// libFuzzer reports as a crash and the replay main as a failed test.
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <span>
#include <vector>

#include "inputanim/inputanim.hpp"

namespace inputanim::fuzz {

[[noreturn]] inline void fail(const char* what, const char* file, int line) {
    std::fprintf(stderr, "%s:%d: invariant broken: %s\n", file, line, what);
    std::abort();
}

#define FUZZ_CHECK(cond) ((cond) ? (void)0 : ::inputanim::fuzz::fail(#cond, __FILE__, __LINE__))
// For an inputanim::error that must be ok: prints its message when it is not.
#define FUZZ_CHECK_OK(err)                                                                       \
    do {                                                                                         \
        const ::inputanim::error fuzz_err_ = (err);                                              \
        if (fuzz_err_) ::inputanim::fuzz::fail(fuzz_err_.message().c_str(), __FILE__, __LINE__); \
    } while (false)

inline std::span<const std::byte> as_bytes(const std::uint8_t* data, std::size_t size) noexcept {
    return {reinterpret_cast<const std::byte*>(data), size};
}

inline constexpr layout_choice all_layout_choices[] = {
    layout_choice::automatic, layout_choice::compact, layout_choice::full, layout_choice::june_2019,
    layout_choice::may_2019};

// Floats compare by their bits: NaN payloads and the sign of zero must survive a round trip.
inline bool same_bits(float a, float b) noexcept {
    return std::bit_cast<std::uint32_t>(a) == std::bit_cast<std::uint32_t>(b);
}
inline bool same_bits(const std::optional<float>& a, const std::optional<float>& b) noexcept {
    return a.has_value() == b.has_value() && (!a || same_bits(*a, *b));
}

inline bool same_keyframe(const keyframe& a, const keyframe& b) noexcept {
    return same_bits(a.time, b.time) && same_bits(a.value, b.value) &&
           same_bits(a.in_tangent, b.in_tangent) && same_bits(a.out_tangent, b.out_tangent) &&
           same_bits(a.in_weight, b.in_weight) && same_bits(a.out_weight, b.out_weight) &&
           a.weighted_mode == b.weighted_mode;
}

inline bool same_model(const model& a, const model& b) noexcept {
    if (a.major != b.major || a.minor != b.minor || a.layout != b.layout || a.blocks != b.blocks) {
        return false;
    }
    for (std::size_t i = 0; i < curve_id_count; ++i) {
        const curve& x = a.curves[i];
        const curve& y = b.curves[i];
        if (x.pre_wrap != y.pre_wrap || x.post_wrap != y.post_wrap) return false;
        if (x.keys.size() != y.keys.size()) return false;
        for (std::size_t k = 0; k < x.keys.size(); ++k) {
            if (!same_keyframe(x.keys[k], y.keys[k])) return false;
        }
    }
    if (a.markers.has_value() != b.markers.has_value()) return false;
    if (!a.markers) return true;
    if (a.markers->size() != b.markers->size()) return false;
    for (std::size_t i = 0; i < a.markers->size(); ++i) {
        const marker& x = (*a.markers)[i];
        const marker& y = (*b.markers)[i];
        if (!same_bits(x.time, y.time) || x.name != y.name) return false;
    }
    return true;
}

inline bool same_summary(const summary& a, const summary& b) noexcept {
    return a.bytes == b.bytes && a.edition == b.edition && a.major == b.major &&
           a.minor == b.minor && a.layout == b.layout && a.blocks == b.blocks &&
           a.curves == b.curves && a.keyframes == b.keyframes && a.markers == b.markers &&
           same_bits(a.start, b.start) && same_bits(a.duration, b.duration);
}

// Where a pull-parser walk over the whole file ends.
struct walk_result {
    inputanim::error error{};
    file_header header{};
    bool opened = false;
    std::uint32_t curves = 0;
    std::uint32_t markers = 0;
    std::uint64_t keyframes = 0;
    std::optional<std::uint32_t> marker_list;
};

inline walk_result walk(std::span<const std::byte> bytes, const read_options& options) {
    walk_result w;
    reader r(bytes, options);
    w.opened = !r.open();
    w.header = r.header();
    item it = r.next();
    for (; it == item::curve || it == item::marker; it = r.next()) {
        if (it == item::curve) ++w.curves;
        if (it == item::marker) ++w.markers;
    }
    w.error = r.error();
    w.keyframes = r.total_keyframes();
    if (r.has_marker_list()) w.marker_list = r.marker_count();
    FUZZ_CHECK((it == item::error) == static_cast<bool>(w.error));
    return w;
}

// An error value is well formed: a known code, an offset inside the file (or the byte ceiling),
// a place that matches the path and index it carries, and a printable message.
inline void check_error_shape(const error& e, std::span<const std::byte> bytes,
                              const limits& lim = {}) {
    FUZZ_CHECK(e.code != errc::ok);
    FUZZ_CHECK(e.code <= errc::bad_utf8);
    FUZZ_CHECK(!error_name(e.code).empty());
    if (e.code == errc::limit_exceeded && e.limit == limit_kind::bytes) {
        FUZZ_CHECK(e.offset == lim.max_bytes && e.place == error_place::none);
    } else {
        FUZZ_CHECK(e.offset <= bytes.size());
    }
    FUZZ_CHECK((e.code == errc::limit_exceeded) == (e.limit != limit_kind::none));
    switch (e.place) {
        case error_place::curve:
            FUZZ_CHECK(to_index(e.curve) < curve_id_count);
            FUZZ_CHECK(e.path() == curve_path(e.curve));
            break;
        case error_place::markers:
            FUZZ_CHECK(e.path() == "markers");
            break;
        case error_place::header:
            FUZZ_CHECK(e.offset <= 18);
            FUZZ_CHECK(e.path().empty());
            break;
        case error_place::none:
        case error_place::trailer:
            FUZZ_CHECK(e.path().empty());
            FUZZ_CHECK(e.index == -1);
            break;
    }
    FUZZ_CHECK(e.index >= -1);
    FUZZ_CHECK(!e.message().empty());
}

// True when every marker name length is in the shortest 7-bit encoding, as the writer makes it;
// only then is re-writing a read file byte-identical.
inline bool minimal_marker_lengths(const recording& rec) noexcept {
    for (const marker_view& m : rec.markers()) {
        const auto name_offset = static_cast<std::uint64_t>(
            reinterpret_cast<const std::byte*>(m.name.data()) - rec.bytes().data());
        std::uint64_t shortest = 1;
        for (std::size_t n = m.name.size(); n >= 0x80; n >>= 7) ++shortest;
        if (name_offset - (m.offset + 4) != shortest) return false;
    }
    return true;
}

// The model of a structurally sound file writes back to the same bytes (or, with long-winded
// marker lengths, to bytes that read back to the same model).
inline void check_model_round_trip(std::span<const std::byte> bytes, layout_choice choice,
                                   const recording& rec) {
    model m;
    FUZZ_CHECK_OK(read_model(bytes, m, read_options{choice}));
    FUZZ_CHECK(m.layout == rec.header().layout && m.blocks == rec.header().blocks);
    if (rec.header().edition != edition::v1) {
        // A 2019 file's model is its v1.0 file's, which reads back to the same model.
        FUZZ_CHECK(m.major == 1 && m.minor == 0);
        model again;
        const std::vector<std::byte> v10 = write(m);
        FUZZ_CHECK_OK(read_model(std::span<const std::byte>(v10), again));
        FUZZ_CHECK(same_model(m, again));
        return;
    }
    FUZZ_CHECK(m.major == rec.header().major && m.minor == rec.header().minor);
    const std::vector<std::byte> out = write(m);
    if (minimal_marker_lengths(rec)) {
        FUZZ_CHECK(out.size() == bytes.size());
        FUZZ_CHECK(std::equal(out.begin(), out.end(), bytes.begin()));
    } else {
        FUZZ_CHECK(out.size() < bytes.size());
    }
    const layout_choice same_layout =
        m.layout == layout::compact ? layout_choice::compact : layout_choice::full;
    model again;
    FUZZ_CHECK_OK(read_model(std::span<const std::byte>(out), again, read_options{same_layout}));
    FUZZ_CHECK(same_model(m, again));
}

// Structure warnings are full's warnings without non_unit_quaternion, in the same order.
inline void check_warnings(const report& structure, const report& full) {
    if (full.warnings_found > report::max_warnings) return;
    std::size_t s = 0;
    for (const warning& w : full.warnings()) {
        FUZZ_CHECK(!w.message().empty());
        if (w.code == warning_code::non_unit_quaternion) continue;
        FUZZ_CHECK(s < structure.warning_count);
        const warning& v = structure.warning_list[s++];
        FUZZ_CHECK(v.code == w.code && v.curve == w.curve && v.keyframe == w.keyframe &&
                   v.count == w.count && same_bits(v.value, w.value));
    }
    FUZZ_CHECK(s == structure.warning_count && s == structure.warnings_found);
}

// What the walk and both levels of validate say about one input under one layout choice.
struct verdicts {
    walk_result walk;
    report structure;
    report full;
};

// The verdict of validate is what the pull parser reached.
inline verdicts quick_check(std::span<const std::byte> bytes, layout_choice choice) {
    verdicts v{fuzz::walk(bytes, read_options{choice}),
               validate(bytes, validate_options{level::structure, choice}),
               validate(bytes, validate_options{level::full, choice})};
    FUZZ_CHECK(v.structure.summary.bytes == bytes.size());
    FUZZ_CHECK(same_summary(v.structure.summary, v.full.summary));
    FUZZ_CHECK(v.structure.error == v.walk.error);
    return v;
}

// quick_check, and everything that follows from the verdict: error values are well formed, a
// structurally sound file builds the recording table with the same summary, content errors
// and warnings are consistent, and the file writes back to itself.
inline verdicts deep_check(std::span<const std::byte> bytes, layout_choice choice) {
    const verdicts v = quick_check(bytes, choice);
    const walk_result& w = v.walk;
    if (w.error) {
        check_error_shape(w.error, bytes);
        FUZZ_CHECK(is_structural(w.error.code));
        FUZZ_CHECK(v.full.error == w.error);
        FUZZ_CHECK(v.structure.warnings_found == 0 && v.full.warnings_found == 0);
        return v;
    }

    recording rec;
    FUZZ_CHECK_OK(rec.open(bytes, read_options{choice}));
    const summary& s = rec.summary();
    FUZZ_CHECK(same_summary(s, v.structure.summary));
    FUZZ_CHECK(s.curves == curve_count(s.blocks) && s.curves == w.curves);
    FUZZ_CHECK(s.keyframes == w.keyframes && s.markers == w.marker_list);
    FUZZ_CHECK(s.start.has_value() == (s.keyframes > 0));
    FUZZ_CHECK(s.duration.has_value() == s.start.has_value());
    FUZZ_CHECK(rec.markers().size() == w.markers);

    if (v.full.error) {
        check_error_shape(v.full.error, bytes);
        FUZZ_CHECK(!is_structural(v.full.error.code));
        FUZZ_CHECK(v.full.error.place == error_place::curve ||
                   v.full.error.place == error_place::markers);
        FUZZ_CHECK(v.full.warnings_found == 0);
    } else {
        check_warnings(v.structure, v.full);
    }
    check_model_round_trip(bytes, choice, rec);
    return v;
}

inline void check_same(const verdicts& a, const verdicts& b) {
    FUZZ_CHECK(a.walk.error == b.walk.error);
    FUZZ_CHECK(a.structure.error == b.structure.error && a.full.error == b.full.error);
    FUZZ_CHECK(same_summary(a.structure.summary, b.structure.summary));
    FUZZ_CHECK(a.structure.warnings_found == b.structure.warnings_found);
    FUZZ_CHECK(a.full.warnings_found == b.full.warnings_found);
}

// The whole differential check of one input: both levels under every layout choice, and the
// layout detection rule of FORMAT.md section 3 (automatic behaves exactly as the layout it
// picks, so it only needs the quick check).
inline void check_file(std::span<const std::byte> bytes) {
    const verdicts automatic = quick_check(bytes, layout_choice::automatic);
    // The 2019 layouts asked for by name, whatever the bytes; a file detected as one (no magic,
    // wholly that layout) behaves exactly as that layout asked for.
    const verdicts june = deep_check(bytes, layout_choice::june_2019);
    const verdicts may = deep_check(bytes, layout_choice::may_2019);
    if (automatic.walk.opened && automatic.walk.header.edition != edition::v1) {
        check_same(automatic, automatic.walk.header.edition == edition::june_2019 ? june : may);
        FUZZ_CHECK(!automatic.walk.error);
        return;
    }
    const verdicts compact = deep_check(bytes, layout_choice::compact);
    // Header errors come before any layout; v1.0 files ignore the layout option.
    if (!compact.walk.opened || compact.walk.header.minor == 0) {
        check_same(automatic, compact);
        check_same(quick_check(bytes, layout_choice::full), compact);
        FUZZ_CHECK(!compact.walk.opened || compact.walk.header.layout == layout::full);
        return;
    }
    const verdicts full = deep_check(bytes, layout_choice::full);
    const verdicts* chosen = &compact;
    if (compact.walk.error &&
        (!full.walk.error || full.walk.error.offset > compact.walk.error.offset)) {
        chosen = &full;
    }
    FUZZ_CHECK(automatic.walk.header.layout == chosen->walk.header.layout);
    check_same(automatic, *chosen);
}

}  // namespace inputanim::fuzz
