// What convert() refuses and how it fails: options it does not allow (nothing written), a sink
// that stops taking bytes (its code, and nothing after it), and a shift that would move times
// past the largest float (refused; every other conversion of a file valid at level full is).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "inputanim/convert.hpp"
#include "inputanim/generate.hpp"
#include "support/builders.hpp"
#include "support/bytes_source.hpp"
#include "support/encoder_sinks.hpp"
#include "support/generated.hpp"

using namespace inputanim;
using namespace inputanim::testing;

namespace {

convert_options bad_options(int which) {
    convert_options o;
    constexpr float inf = std::numeric_limits<float>::infinity();
    switch (which) {
        case 0:
            o.minor = 2;
            break;
        case 1:
            o.layout = static_cast<layout>(7);
            break;
        case 2:
            o.from = std::numeric_limits<float>::quiet_NaN();
            break;
        case 3:
            o.to = inf;
            break;
        case 4:
            o.from = 2.0f;
            o.to = 1.0f;
            break;
        case 5:
            o.thin = thinning{-0.001, 0.02, 32};
            break;
        case 6:
            o.thin = thinning{0.001, 181.0, 32};
            break;
        default:
            o.thin = thinning{0.001, 0.02, -1};
            break;
    }
    return o;
}

}  // namespace

TEST(ConvertErrors, OptionsItDoesNotAllowAreTheirProblemAndWriteNothing) {
    const bytes source = small_file(shape::v11_compact);
    recording rec;
    ASSERT_FALSE(rec.open(view(source)));
    const option_error expected[] = {option_error::bad_version,
                                     option_error::bad_layout,
                                     option_error::window_not_finite,
                                     option_error::window_not_finite,
                                     option_error::window_reversed,
                                     option_error::bad_position_tolerance,
                                     option_error::bad_rotation_tolerance,
                                     option_error::bad_partition};
    const std::string_view messages[] = {"the target version must be 1.0 or 1.1 (minor 0 or 1)",
                                         "unknown layout",
                                         "the window's ends must be finite times",
                                         "the window's ends must be finite times",
                                         "the window starts after it ends",
                                         "the position tolerance must be a finite number >= 0",
                                         "the rotation tolerance must be between 0 and 180 degrees",
                                         "the partition must be >= 0"};
    for (int which = 0; which < 8; ++which) {
        const convert_options o = bad_options(which);
        EXPECT_EQ(o.problem(), expected[which]) << which;
        EXPECT_EQ(o.problem().message(), messages[which]) << which;
        EXPECT_EQ(o.problem(), std::errc::invalid_argument) << which;
        recording_sink sink;
        const convert_result r = convert(rec, sink, o);
        EXPECT_EQ(r.error, expected[which]) << which;
        EXPECT_EQ(sink.calls, 0u) << which;
        EXPECT_EQ(r.keys_written, 0u) << which;
    }
    EXPECT_FALSE(convert_options{}.problem());
}

TEST(ConvertErrors, ASinkThatFailsStopsTheConversionWithItsCode) {
    model m = small_model(shape::v11_full);
    // Enough keys for several of the encoder's pieces.
    for (int i = 0; i < 5000; ++i) {
        m[camera_curve(pose_channel::position_x)].keys.push_back(
            keyframe{1.0f + static_cast<float>(i), 0.0f});
    }
    const bytes source = write(m);
    recording rec;
    ASSERT_FALSE(rec.open(view(source)));
    for (const bool thin : {false, true}) {
        convert_options whole;
        whole.layout = layout::full;
        if (thin) whole.thin = thinning{};
        failing_sink all(std::numeric_limits<std::size_t>::max());
        ASSERT_FALSE(convert(rec, all, whole).error);
        ASSERT_GE(all.calls, 3u);
        // The first call, one in the middle of the curves, and the last.
        for (const std::size_t accepted : {std::size_t{0}, std::size_t{1}, all.calls - 1}) {
            failing_sink sink(accepted);
            convert_options o;
            o.layout = layout::full;
            if (thin) o.thin = thinning{};
            const convert_result r = convert(rec, sink, o);
            EXPECT_EQ(r.error, std::make_error_code(std::errc::no_space_on_device))
                << accepted << (thin ? " thinned" : "");
            // The encoder stops at its first failure: one refused call, nothing after it.
            EXPECT_EQ(sink.calls, accepted + 1);
        }
    }
}

TEST(ConvertErrors, ASourceThatCannotBeReadStopsTheConversionWithItsCode) {
    const bytes source = small_file(shape::v11_full);
    recording rec;
    ASSERT_FALSE(rec.open(view(source)));
    // A file that cannot be read by offset (a pipe's invalid_seek, test_loaded), and one that
    // ends before the recording's keys do.
    const failing_source unseekable(std::errc::invalid_seek);
    const bytes_source shorter(bytes(source.begin(), source.begin() + 40));
    for (const auto& [file, code] :
         {std::pair<const offset_source*, std::errc>{&unseekable, std::errc::invalid_seek},
          std::pair<const offset_source*, std::errc>{&shorter, std::errc::io_error}}) {
        recording_sink sink;
        convert_options o;
        o.source = file;
        const convert_result r = convert(rec, sink, o);
        EXPECT_TRUE(r.source_failed);
        EXPECT_EQ(r.error, std::make_error_code(code));
        // Nothing after the failure: the file's last bytes never reach the sink.
        EXPECT_LT(sink.bytes.size(), source.size());
    }
}

TEST(ConvertErrors, ASinkThatFailsOnlyAtTheEndIsStillReported) {
    const bytes source = small_file(shape::v10);
    recording rec;
    ASSERT_FALSE(rec.open(view(source)));
    // The whole small file fits the encoder's buffer: its one write comes from finish().
    failing_sink sink(0);
    const convert_result r = convert(rec, sink, convert_options{});
    EXPECT_EQ(r.error, std::make_error_code(std::errc::no_space_on_device));
    EXPECT_EQ(sink.calls, 1u);
}

// --- time arithmetic: shifted times stay finite and increasing, or the conversion is refused

namespace {

constexpr float float_max = std::numeric_limits<float>::max();

// A v1.1 compact model valid at level full: camera.position.x holds keys at `x_times`,
// camera.position.y at `y_times` (each increasing), and markers at `marker_times`.
model timed_model(const std::vector<float>& x_times, const std::vector<float>& y_times = {},
                  const std::vector<float>& marker_times = {}) {
    model m = empty_model(shape::v11_compact);
    for (const float t : x_times) m[camera_curve(pose_channel::position_x)].keys.push_back({t, 1});
    for (const float t : y_times) m[camera_curve(pose_channel::position_y)].keys.push_back({t, 2});
    m.markers->clear();
    for (const float t : marker_times) m.markers->push_back(marker{t, "m"});
    return m;
}

convert_result convert_bytes(const bytes& source, const convert_options& o, bytes& out) {
    recording rec;
    EXPECT_FALSE(rec.open(view(source)));
    out.clear();
    vector_sink sink(out);
    return convert(rec, sink, o);
}

}  // namespace

TEST(ConvertErrors, AShiftPastTheLargestFloatIsRefusedBeforeAnythingIsWritten) {
    struct shift_case {
        const char* what;
        model m;
        std::optional<float> from;
    };
    const shift_case cases[] = {
        {"keys at -3e38 and 3e38, shifted by the first", timed_model({-3e38f}, {3e38f}), {}},
        {"a key at 3e38 from -3e38", timed_model({3e38f}), -3e38f},
        {"a marker at -3e38 before keys at 3e38", timed_model({3e38f}, {}, {-3e38f}), {}},
        {"a marker at 3e38 after a key at -3e38", timed_model({-3e38f}, {}, {3e38f}), {}},
        {"the window's far end", timed_model({-float_max, 0.0f, float_max}), -float_max},
    };
    for (const shift_case& c : cases) {
        const bytes source = write(c.m);
        ASSERT_TRUE(validate(view(source), {level::full}).valid()) << c.what;
        recording rec;
        ASSERT_FALSE(rec.open(view(source)));
        convert_options o;
        o.from = c.from;
        o.shift_to_zero = true;
        recording_sink sink;
        const convert_result r = convert(rec, sink, o);
        EXPECT_EQ(r.error, convert_error::shift_out_of_range) << c.what;
        EXPECT_EQ(sink.calls, 0u) << c.what;
        // Unshifted, the same file converts.
        o.shift_to_zero = false;
        bytes out;
        EXPECT_FALSE(convert_bytes(source, o, out).error) << c.what;
        EXPECT_TRUE(validate(view(out), {level::full}).valid()) << c.what;
    }
}

TEST(ConvertErrors, NudgesThatWouldPassTheLargestFloatAreRefused) {
    // Keys one float apart just below 2^127, shifted by -2^127 into the binade above, whose floats
    // are twice as far apart: the subtraction puts some on their predecessor's time, the nudges
    // that keep times increasing climb, and the last would pass the largest float. Every time is
    // finite before the nudges, so only the conversion itself can tell.
    const float u = std::ldexp(1.0f, 103);
    const float top = std::ldexp(1.0f, 127);
    const bytes source = write(timed_model({top - 5 * u, top - 4 * u, top - 3 * u, top - 2 * u}));
    ASSERT_TRUE(validate(view(source), {level::full}).valid());
    convert_options o;
    o.from = -top;
    o.shift_to_zero = true;
    bytes out;
    const convert_result r = convert_bytes(source, o, out);
    EXPECT_EQ(r.error, convert_error::shift_out_of_range);
    EXPECT_GT(r.keys_nudged, 0u);
}

TEST(ConvertErrors, KeysAnywhereInFloatsRangeGiveAFileValidAtLevelFullOrARefusal) {
    const float denormal = std::numeric_limits<float>::denorm_min();
    const std::vector<std::vector<float>> key_sets = {
        {1e7f, 1e7f + 1, 1e7f + 2, 1e7f + 3},
        {1e30f, 1e30f + 1e23f, 2e30f},
        {denormal, 2 * denormal, 3 * denormal, 1e-38f},
        {-3e38f, -1e38f, 0.0f},
        {-1e38f, 0.0f, 1e38f, 3e38f},
        {0.0f, std::nextafter(0.0f, 1.0f), 1.0f, 1e7f, 1e38f},
    };
    const std::vector<float> ends = {-float_max, -3e38f, -1e7f, -denormal, 0.0f,
                                     denormal,   1.5f,   1e7f,  1e30f,     float_max};
    int refused = 0;
    int converted = 0;
    for (const std::vector<float>& keys : key_sets) {
        // The same keys on a second curve a little later, and markers at the extremes.
        std::vector<float> later;
        for (const float t : keys) later.push_back(std::nextafter(t, float_max));
        const bytes source = write(timed_model(keys, later, {keys.front(), keys.back()}));
        ASSERT_TRUE(validate(view(source), {level::full}).valid());
        for (const float from : ends) {
            for (const float to : ends) {
                for (const int pick : {0, 1, 2, 3}) {
                    convert_options o;
                    if (pick & 1) o.from = from;
                    if ((pick & 2) && !(o.from && *o.from > to)) o.to = to;
                    for (const bool shift : {false, true}) {
                        for (const bool thin : {false, true}) {
                            o.shift_to_zero = shift;
                            o.thin.reset();
                            if (thin) o.thin = thinning{};
                            bytes out;
                            const convert_result r = convert_bytes(source, o, out);
                            const std::string what = "keys from " + std::to_string(keys.front()) +
                                                     ", from " + std::to_string(from) + ", to " +
                                                     std::to_string(to) + " pick " +
                                                     std::to_string(pick);
                            if (r.error == convert_error::shift_out_of_range) {
                                EXPECT_TRUE(shift) << what;
                                ++refused;
                                continue;
                            }
                            ASSERT_FALSE(r.error) << what << ": " << r.error.message();
                            const report checked = validate(view(out), {level::full});
                            EXPECT_TRUE(checked.valid()) << what << ": " << checked.error.message();
                            ++converted;
                        }
                    }
                }
            }
        }
    }
    EXPECT_GT(refused, 0);
    EXPECT_GT(converted, refused);
}

// The streaming conversion (stream_converter) refuses what convert() refuses, and what is not
// sequential; it stops at the sink's failure and at bytes it cannot frame, and ignores what
// comes after.
namespace {

convert_result stream_all(const bytes& source, byte_sink& sink, const convert_options& o = {},
                          layout source_layout = layout::compact) {
    stream_converter s(source_layout, sink, o);
    s.feed(view(source));
    return s.finish();
}

}  // namespace

TEST(ConvertErrors, AStreamConverterRefusesBadOptionsAndOnesThatAreNotSequential) {
    const bytes source = small_file(shape::v11_compact);
    for (int which = 0; which < 8; ++which) {
        recording_sink sink;
        const convert_result r = stream_all(source, sink, bad_options(which));
        EXPECT_EQ(r.error, bad_options(which).problem()) << which;
        EXPECT_TRUE(sink.bytes.empty());
    }
    convert_options window;
    window.from = 1.0f;
    convert_options shift;
    shift.shift_to_zero = true;
    convert_options thin;
    thin.thin = thinning{};
    for (const convert_options& o : {window, shift, thin}) {
        recording_sink sink;
        EXPECT_FALSE(o.sequential());
        EXPECT_EQ(stream_all(source, sink, o).error, std::errc::invalid_argument);
        EXPECT_TRUE(sink.bytes.empty());
    }
}

TEST(ConvertErrors, AStreamConverterStopsAtTheSinksFailureWithItsCode) {
    generate_options g;
    g.seconds = 5;
    g.raw = true;
    const bytes source = write(generated_model(g));
    for (const std::size_t accepted : {std::size_t{0}, std::size_t{1}, std::size_t{10}}) {
        failing_sink sink(accepted);
        convert_options full;
        full.layout = layout::full;
        stream_converter s(layout::compact, sink, full);
        std::error_code first;
        for (std::size_t at = 0; at < source.size(); at += 1000) {
            const std::error_code e = s.feed(
                std::span(source).subspan(at, std::min<std::size_t>(1000, source.size() - at)));
            if (e && !first) first = e;
        }
        const convert_result& r = s.finish();
        EXPECT_EQ(r.error, std::errc::no_space_on_device) << accepted;
        EXPECT_EQ(first, std::errc::no_space_on_device) << accepted;
        // Nothing is handed to the sink after its failure.
        EXPECT_EQ(sink.calls, accepted + 1);
    }
}

TEST(ConvertErrors, AStreamConverterStopsAtBytesItCannotFrame) {
    const model m = small_model(shape::v11_compact);
    const bytes good = write(m);
    std::vector<std::pair<std::string, bytes>> bad;
    bytes no_magic = good;
    no_magic[0] = std::byte{0};
    bad.emplace_back("no magic", no_magic);
    bytes version = good;
    put_i32(version, 12, 2);
    bad.emplace_back("version 1.2", version);
    bytes negative = good;
    put_i32(negative, curve_offset(m, 3) + 8, -1);
    bad.emplace_back("a negative key count", negative);
    bytes markers = good;
    put_i32(markers, marker_list_offset(m), -5);
    bad.emplace_back("a negative marker count", markers);
    bytes long_name = good;
    long_name.resize(marker_list_offset(m) + 8);
    put_i32(long_name, marker_list_offset(m), 1);
    for (const std::uint8_t b : {0xff, 0xff, 0xff, 0xff, 0x7f}) long_name.push_back(std::byte{b});
    bad.emplace_back("a name length over Int32", long_name);
    bytes endless = long_name;
    endless.resize(endless.size() - 1);
    endless.push_back(std::byte{0xff});
    bad.emplace_back("a name length of six bytes", endless);
    bytes trailing = good;
    trailing.push_back(std::byte{0});
    bad.emplace_back("a byte after the marker list", trailing);
    for (const std::size_t cut :
         {std::size_t{0}, std::size_t{10}, std::size_t{17}, curve_offset(m, 2) + 5,
          marker_list_offset(m) + 2, good.size() - 1}) {
        bad.emplace_back("cut at " + std::to_string(cut),
                         bytes(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(cut)));
    }
    for (const auto& [name, source] : bad) {
        recording_sink sink;
        EXPECT_EQ(stream_all(source, sink).error, convert_error::cannot_frame) << name;
    }
}

TEST(ConvertErrors, AStreamConverterIgnoresBytesAfterItsErrorAndAfterFinish) {
    const bytes source = small_file(shape::v11_compact);
    recording_sink sink;
    stream_converter s(layout::compact, sink, {});
    s.feed(view(source));
    EXPECT_FALSE(s.finish().error);
    const std::size_t written = sink.bytes.size();
    EXPECT_FALSE(s.feed(view(source)));
    EXPECT_FALSE(s.finish().error);
    EXPECT_EQ(sink.bytes.size(), written);
    EXPECT_EQ(sink.bytes, source);

    recording_sink other;
    stream_converter t(layout::compact, other, {});
    bytes trailing = source;
    trailing.push_back(std::byte{1});
    EXPECT_EQ(t.feed(view(trailing)), convert_error::cannot_frame);
    EXPECT_EQ(t.feed(view(source)), convert_error::cannot_frame);
    EXPECT_EQ(t.finish().error, convert_error::cannot_frame);
}
