// Files and a comparison of reports for the tests of the other ways to validate, which must give
// validate()'s report (the many-inputs validate, threads, the streaming validator).
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <functional>
#include <optional>
#include <random>
#include <span>
#include <sstream>
#include <string>
#include <vector>

#include "inputanim/generate.hpp"
#include "inputanim/inputanim.hpp"
#include "support/builders.hpp"
#include "support/generated.hpp"

namespace inputanim::testing {

inline std::string describe(const error& e) {
    std::ostringstream out;
    out << error_name(e.code) << " at " << e.offset << " (place " << static_cast<int>(e.place)
        << ", curve " << to_index(e.curve) << ", index " << e.index << ", limit "
        << limit_name(e.limit) << ")";
    return out.str();
}

inline std::string describe(const validate_options& o) {
    std::ostringstream out;
    out << (o.level == level::full ? "full" : "structure") << "/" << layout_choice_name(o.layout);
    return out.str();
}

// Both levels under every layout choice, no limits.
inline std::vector<validate_options> every_layout_and_level() {
    std::vector<validate_options> out;
    for (level l : {level::full, level::structure}) {
        for (layout_choice c :
             {layout_choice::automatic, layout_choice::compact, layout_choice::full,
              layout_choice::june_2019, layout_choice::may_2019}) {
            out.push_back(validate_options{l, c, {}});
        }
    }
    return out;
}

inline bool same_bits(const std::optional<float>& a, const std::optional<float>& b) {
    if (a.has_value() != b.has_value()) return false;
    return !a || std::bit_cast<std::uint32_t>(*a) == std::bit_cast<std::uint32_t>(*b);
}

// What differs between two summaries, their `bytes` aside (a stream cut short has seen fewer).
inline std::string summary_difference(const summary& a, const summary& b) {
    std::string d;
    if (a.edition != b.edition || a.major != b.major || a.minor != b.minor) {
        d += "summary version; ";
    }
    if (a.layout != b.layout) d += "summary.layout; ";
    if (!(a.blocks == b.blocks)) d += "summary.blocks; ";
    if (a.curves != b.curves) d += "summary.curves; ";
    if (a.keyframes != b.keyframes) d += "summary.keyframes; ";
    if (a.markers != b.markers) d += "summary.markers; ";
    if (!same_bits(a.start, b.start)) d += "summary.start; ";
    if (!same_bits(a.duration, b.duration)) d += "summary.duration; ";
    return d;
}

// Whether two reports list the same warnings, values bit for bit, leaving out those of code
// `skip` (non_unit_quaternion, which a stream does not compute).
inline bool same_warnings(const report& a, const report& b,
                          std::optional<warning_code> skip = std::nullopt) {
    const auto kept = [&](const report& r) {
        std::vector<warning> out;
        for (const warning& w : r.warnings()) {
            if (w.code != skip) out.push_back(w);
        }
        return out;
    };
    const std::vector<warning> x = kept(a);
    const std::vector<warning> y = kept(b);
    if (x.size() != y.size()) return false;
    for (std::size_t i = 0; i < x.size(); ++i) {
        if (x[i].code != y[i].code || x[i].curve != y[i].curve || x[i].keyframe != y[i].keyframe ||
            x[i].count != y[i].count ||
            std::bit_cast<std::uint32_t>(x[i].value) != std::bit_cast<std::uint32_t>(y[i].value)) {
            return false;
        }
    }
    return true;
}

// Empty when the two reports are the same in every field; else what differs.
inline std::string difference(const report& a, const report& b) {
    std::string d;
    if (!(a.error == b.error))
        d += "error " + describe(a.error) + " vs " + describe(b.error) + "; ";
    if (a.summary.bytes != b.summary.bytes) d += "summary.bytes; ";
    d += summary_difference(a.summary, b.summary);
    if (a.warnings_found != b.warnings_found || !same_warnings(a, b)) d += "warnings; ";
    return d;
}

// What a streaming validator said of an input, as tests feed it.
struct streamed {
    report rep;
    // The stream said `error` before the end of the input, and the rest was not fed.
    bool cut_early = false;
};

// Feeds `b` in chunks of the sizes `next_size` gives, stopping at an `error` as a server would.
inline streamed stream(std::span<const std::byte> b, const validate_options& options,
                       const std::function<std::size_t()>& next_size) {
    stream_validator v(options);
    std::size_t pos = 0;
    bool cut = false;
    while (pos < b.size()) {
        const std::size_t n = std::min(next_size(), b.size() - pos);
        pos += n;
        if (v.feed(b.subspan(pos - n, n)) == stream_status::error) {
            cut = pos < b.size();
            break;
        }
    }
    return {v.finish(), cut};
}

inline streamed stream_in_chunks_of(std::span<const std::byte> b, const validate_options& options,
                                    std::size_t size) {
    return stream(b, options, [size] { return size; });
}

inline streamed stream_at_random(std::span<const std::byte> b, const validate_options& options,
                                 std::mt19937& rng, std::size_t max_chunk) {
    std::uniform_int_distribution<std::size_t> size(1, max_chunk);
    return stream(b, options, [&] { return size(rng); });
}

// Empty when the streamed report says what validate() says; else what differs. A stream cut
// early has seen fewer bytes, so its summary.bytes may be smaller.
inline std::string difference(const report& whole, const streamed& s) {
    const report& r = s.rep;
    std::string d;
    if (whole.valid() != r.valid()) d += "validity; ";
    if (!(whole.error == r.error)) {
        d += "error: validate " + describe(whole.error) + ", stream " + describe(r.error) + "; ";
    }
    const summary& a = whole.summary;
    const summary& b = r.summary;
    if (s.cut_early ? b.bytes > a.bytes : b.bytes != a.bytes) d += "summary.bytes; ";
    d += summary_difference(a, b);
    if (!same_warnings(whole, r, warning_code::non_unit_quaternion)) d += "warnings; ";
    return d;
}

// Valid files of every shape with and without markers, a generated recording with warnings of
// every kind, and damaged copies: cut short, a bad count, a bad magic, a NaN key.
inline std::vector<bytes> mixed_files() {
    std::vector<bytes> files;
    for (const shape s : all_shapes) {
        for (const bool markers : {true, false}) {
            const model m = small_model(s, markers);
            const bytes b = write(m);
            files.push_back(b);
            files.push_back(
                bytes(b.begin(), b.begin() + static_cast<std::ptrdiff_t>(b.size() / 2)));
            bytes bad_count = b;
            put_i32(bad_count, curve_offset(m, 3) + 8, -1);
            files.push_back(bad_count);
            bytes nan_key = b;
            put_f32(nan_key, curve_offset(m, 0) + curve_header_size + 4, std::nanf(""));
            files.push_back(nan_key);
        }
    }
    bytes bad_magic = small_file(shape::v11_compact);
    bad_magic[0] = std::byte{0};
    files.push_back(bad_magic);
    files.push_back({});
    // The 2019 layouts, whole and cut short.
    const model v10 = small_model(shape::v10);
    for (const bytes& b : {write_2019(v10, edition::june_2019),
                           write_2019(v10, edition::may_2019, bool_keyframe_size),
                           write_2019(v10, edition::may_2019, full_keyframe_size)}) {
        files.push_back(b);
        files.push_back(bytes(b.begin(), b.end() - 1));
    }
    generate_options g;
    g.seconds = 2;
    g.markers = 3;
    for (const layout l : {layout::compact, layout::full}) {
        g.layout = l;
        model m = generated_model(g);
        // A rotation off unit length and a negative time, for the warnings.
        m[camera_curve(pose_channel::rotation_w)].keys[1].value = 3.0f;
        m[camera_curve(pose_channel::position_y)].keys[0].time = -0.25f;
        files.push_back(write(m));
    }
    return files;
}

}  // namespace inputanim::testing
