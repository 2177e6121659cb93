// The exporters (inputanim/export.hpp): the size computed before the first byte and what is
// refused on it, the glTF container and its keyframes, and the Unity clip's text for keys, wrap
// modes, steps and markers. The readers nobody here wrote (glTF-Validator, three.js, YAML) check
// the rest: tests/export, tests/browser/gltf_loader_test.py, python/tests/test_export.py.
#include <bit>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "support/encoder_sinks.hpp"

using namespace inputanim;
using namespace inputanim::testing;

namespace {

// camera.position.x rises from 0 at t=-1 to 2 at t=1 (Loop before, PingPong after); the left
// hand is tracked from t=0; one marker at t=0.5.
model small_motion() {
    model m;
    curve& x = m[camera_curve(pose_channel::position_x)];
    x.pre_wrap = 2;
    x.post_wrap = 4;
    x.keys = {{-1.0f, 0.0f}, {1.0f, 2.0f}};
    m[camera_curve(pose_channel::rotation_w)].keys = {{-1.0f, 1.0f}};
    m[hand_state_curve(hand_state::left_tracked)].keys = {{-1.0f, 0.0f}, {0.0f, 1.0f}};
    m.markers = std::vector<marker>{{0.5f, "tap \"here\""}};
    return m;
}

struct open_source {
    std::vector<std::byte> bytes;
    recording rec;
};

void open_model(const model& m, open_source& o) {
    o.bytes = write(m);
    ASSERT_FALSE(o.rec.open(o.bytes));
}

export_result run_export(const recording& rec, export_options o, std::vector<std::byte>& out) {
    out.clear();
    vector_sink sink(out);
    return export_recording(rec, sink, o);
}

std::string text_of(const std::vector<std::byte>& b) {
    return {reinterpret_cast<const char*>(b.data()), b.size()};
}

// glTF's numbers are little-endian on every host.
std::uint32_t u32_at(const std::vector<std::byte>& b, std::size_t at) {
    std::uint32_t v = 0;
    for (std::size_t i = 0; i < 4; ++i) {
        v |= static_cast<std::uint32_t>(std::to_integer<std::uint8_t>(b[at + i])) << (8 * i);
    }
    return v;
}

float f32_at(const std::vector<std::byte>& b, std::size_t at) {
    return std::bit_cast<float>(u32_at(b, at));
}

}  // namespace

TEST(Export, FormatNamesAreTheExtensions) {
    for (const export_format f : {export_format::glb, export_format::gltf, export_format::anim}) {
        EXPECT_EQ(parse_export_format_name(export_format_name(f)), f);
    }
    EXPECT_EQ(parse_export_format_name("obj"), std::nullopt);
    EXPECT_EQ(make_error_code(export_error::too_large).category().name(),
              std::string("inputanim.export"));
    EXPECT_EQ(export_error_name(export_error::empty_window), "empty_window");
}

TEST(Export, GlbIsOneJsonChunkAndOneBinaryChunkOfTheSizeComputedFirst) {
    open_source o;
    open_model(small_motion(), o);
    std::vector<std::byte> out;
    export_options e;
    e.rate = 2.0;
    const export_result r = run_export(o.rec, e, out);
    ASSERT_FALSE(r.error) << r.error.message();
    EXPECT_EQ(r.written, out.size());
    EXPECT_EQ(r.size, out.size());
    // -1, -0.5, ..., 1: five rows, shifted by 1 to start at 0.
    EXPECT_EQ(r.rows, 5u);
    EXPECT_EQ(r.time_shift, 1.0);
    ASSERT_GT(out.size(), 28u);
    EXPECT_EQ(text_of(out).substr(0, 4), "glTF");
    EXPECT_EQ(u32_at(out, 4), 2u);
    EXPECT_EQ(u32_at(out, 8), out.size());
    const std::uint32_t json_length = u32_at(out, 12);
    EXPECT_EQ(json_length % 4, 0u);
    EXPECT_EQ(text_of(out).substr(16, 4), "JSON");
    const std::string json = text_of(out).substr(20, json_length);
    EXPECT_NE(json.find("\"timeShift\":1"), std::string::npos);
    EXPECT_NE(json.find("\"markers\":[{\"time\":1.5,\"name\":\"tap \\\"here\\\"\"}]"),
              std::string::npos);
    const std::size_t bin = 20 + json_length;
    EXPECT_EQ(text_of(out).substr(bin + 4, 4), std::string("BIN\0", 4));
    EXPECT_EQ(u32_at(out, bin) + bin + 8, out.size());
}

TEST(Export, GltfEmbedsTheSameBufferAsBase64AndItsSizeIsComputedFirst) {
    open_source o;
    open_model(small_motion(), o);
    std::vector<std::byte> out;
    export_options e;
    e.format = export_format::gltf;
    const export_result r = run_export(o.rec, e, out);
    ASSERT_FALSE(r.error) << r.error.message();
    EXPECT_EQ(r.size, out.size());
    const std::string text = text_of(out);
    EXPECT_EQ(text.front(), '{');
    EXPECT_NE(text.find("\"uri\":\"data:application/octet-stream;base64,"), std::string::npos);
    EXPECT_EQ(text.substr(text.size() - 5), "\"}]}\n");
}

TEST(Export, TheTimesOfAGlbAreTheGridAndTheHeadIsMirroredInX) {
    model m;
    m[camera_curve(pose_channel::position_x)].keys = {{0.0f, 0.0f}, {1.0f, 1.0f}};
    m[camera_curve(pose_channel::rotation_w)].keys = {{0.0f, 1.0f}};
    open_source o;
    open_model(m, o);
    std::vector<std::byte> out;
    export_options e;
    e.rate = 4.0;
    const export_result r = run_export(o.rec, e, out);
    ASSERT_FALSE(r.error);
    ASSERT_EQ(r.rows, 5u);
    // The buffer: 192 bytes of geometry, the times, then the head's translations.
    const std::size_t bin = 28 + u32_at(out, 12);
    for (std::size_t i = 0; i < 5; ++i) {
        EXPECT_EQ(f32_at(out, bin + 192 + 4 * i), static_cast<float>(i / 4.0));
        EXPECT_EQ(f32_at(out, bin + 192 + 20 + 12 * i),
                  -evaluate(*o.rec.camera(pose_channel::position_x), static_cast<float>(i / 4.0)));
    }
}

TEST(Export, AnOutputOverTheCeilingIsRefusedBeforeAnyByte) {
    open_source o;
    open_model(small_motion(), o);
    for (const export_format f : {export_format::glb, export_format::gltf, export_format::anim}) {
        failing_sink sink(0);
        export_options e;
        e.format = f;
        e.max_bytes = 1000;
        const export_result r = export_recording(o.rec, sink, e);
        EXPECT_EQ(r.error, export_error::too_large) << export_format_name(f);
        EXPECT_GT(r.size, 1000u);
        EXPECT_EQ(sink.calls, 0u);
    }
}

TEST(Export, AGridTheLibraryRefusesIsItsError) {
    open_source o;
    open_model(small_motion(), o);
    std::vector<std::byte> out;
    export_options e;
    e.from = 5.0;
    EXPECT_EQ(run_export(o.rec, e, out).error, export_error::empty_window);
    e.from.reset();
    e.rate = 0.0;
    EXPECT_EQ(run_export(o.rec, e, out).error, grid_error::bad_rate);
    open_source empty;
    open_model(model{}, empty);
    EXPECT_EQ(run_export(empty.rec, export_options{}, out).error, grid_error::no_keys);
    EXPECT_TRUE(out.empty());
}

TEST(Export, AUnityClipTakesNoWindow) {
    open_source o;
    open_model(small_motion(), o);
    std::vector<std::byte> out;
    export_options e;
    e.format = export_format::anim;
    e.to = 0.5;
    EXPECT_EQ(run_export(o.rec, e, out).error, export_error::window_not_supported);
    EXPECT_TRUE(out.empty());
}

TEST(Export, TheSinksFailureIsTheResult) {
    open_source o;
    open_model(small_motion(), o);
    for (const export_format f : {export_format::glb, export_format::gltf, export_format::anim}) {
        failing_sink sink(0);
        export_options e;
        e.format = f;
        EXPECT_EQ(export_recording(o.rec, sink, e).error, std::errc::no_space_on_device);
    }
}

TEST(Export, AUnityClipCarriesTheKeysWrapModesStepsAndMarkers) {
    open_source o;
    open_model(small_motion(), o);
    std::vector<std::byte> out;
    export_options e;
    e.format = export_format::anim;
    const export_result r = run_export(o.rec, e, out);
    ASSERT_FALSE(r.error);
    EXPECT_LE(out.size(), r.size);
    const std::string text = text_of(out);
    EXPECT_EQ(text.rfind("%YAML 1.1\n%TAG !u! tag:unity3d.com,2011:\n--- !u!74 &7400000\n"
                         "AnimationClip:\n",
                         0),
              0u);
    // camera.position.x: linear keys (slopes 0, weights 0, mode Both), Loop before (Repeat, 1)
    // and PingPong after (0).
    EXPECT_NE(text.find("      - serializedVersion: 3\n        time: 1\n        value: 2\n"
                        "        inSlope: 0\n        outSlope: 0\n        tangentMode: 0\n"
                        "        weightedMode: 3\n        inWeight: 0\n        outWeight: 0\n"
                        "      m_PreInfinity: 1\n      m_PostInfinity: 0\n"
                        "      m_RotationOrder: 4\n    attribute: m_LocalPosition.x\n"
                        "    path: Camera\n    classID: 4\n"),
              std::string::npos);
    // hand.left.tracked: a step on the hand's GameObject, in both lists.
    const std::string tracked =
        "        time: 0\n        value: 1\n        inSlope: Infinity\n"
        "        outSlope: Infinity\n        tangentMode: 103\n        weightedMode: 0\n";
    const std::size_t first = text.find(tracked);
    ASSERT_NE(first, std::string::npos);
    EXPECT_NE(text.find(tracked, first + 1), std::string::npos);
    EXPECT_NE(text.find("    attribute: m_IsActive\n    path: LeftHand\n    classID: 1\n"),
              std::string::npos);
    EXPECT_NE(text.find("  m_Events:\n  - time: 0.5\n    functionName: OnInputAnimationMarker\n"
                        "    data: \"tap \\\"here\\\"\"\n"),
              std::string::npos);
    // The None joint is left out.
    EXPECT_EQ(text.find("/None"), std::string::npos);
}

// --- the exporter's steps -------------------------------------------------------------------

TEST(Export, TheExportersPiecesAreTheWholeExport) {
    open_source o;
    open_model(small_model(shape::v11_full), o);
    for (const export_format f : {export_format::glb, export_format::gltf, export_format::anim}) {
        export_options e;
        e.format = f;
        std::vector<std::byte> whole;
        const export_result r = run_export(o.rec, e, whole);
        ASSERT_FALSE(r.error) << r.error.message();
        exporter x(o.rec, e);
        const export_result planned = x.plan();
        ASSERT_FALSE(planned.error);
        EXPECT_EQ(planned.size, r.size);
        ASSERT_FALSE(x.prepare());
        std::vector<std::byte> pieces;
        std::size_t count = 0;
        for (std::span<const std::byte> p = x.next(); !p.empty(); p = x.next(), ++count) {
            pieces.insert(pieces.end(), p.begin(), p.end());
        }
        EXPECT_EQ(pieces, whole) << export_format_name(f);
        EXPECT_GT(count, 0u);
        EXPECT_LE(planned.buffer_bytes, std::uint64_t{2} << 20);
    }
}

TEST(Export, ALongExportIsMadeInPiecesOfAQuarterMebibyte) {
    open_source o;
    open_model(small_model(shape::v11_compact), o);
    export_options e;
    e.rate = 20000.0;
    exporter x(o.rec, e);
    const export_result planned = x.plan();
    ASSERT_FALSE(planned.error);
    ASSERT_GT(planned.size, std::uint64_t{4} << 20);
    ASSERT_FALSE(x.prepare());
    std::uint64_t total = 0;
    for (std::span<const std::byte> p = x.next(); !p.empty(); p = x.next()) {
        EXPECT_LE(p.size(), std::size_t{256} << 10);
        total += p.size();
    }
    EXPECT_EQ(total, planned.size);
}

// --- the size said before the first byte ----------------------------------------------------

TEST(Export, TheSizeOfARefusalIsTheSizeOfTheExportInEveryFormat) {
    open_source o;
    open_model(small_model(shape::v11_full), o);
    for (const export_format f : {export_format::glb, export_format::gltf, export_format::anim}) {
        export_options e;
        e.format = f;
        std::vector<std::byte> out;
        ASSERT_FALSE(run_export(o.rec, e, out).error);
        e.max_bytes = out.size() - 1;
        const export_result refused = run_export(o.rec, e, out);
        EXPECT_EQ(refused.error, export_error::too_large) << export_format_name(f);
        EXPECT_EQ(refused.size, e.max_bytes + 1) << export_format_name(f);
        EXPECT_FALSE(refused.size_is_lower_bound);
        EXPECT_TRUE(out.empty());
    }
}

TEST(Export, AGridOverTheCeilingIsSizedWithoutBeingCounted) {
    open_source o;
    open_model(small_model(shape::v11_compact), o);
    export_options e;
    e.max_bytes = 1 << 20;
    std::vector<std::byte> out;
    // The keys lie near 0: at 100 kHz every grid point is a row, so the size is the whole grid's,
    // as a ceiling that takes it shows.
    e.rate = 1e5;
    const export_result r = run_export(o.rec, e, out);
    EXPECT_EQ(r.error, export_error::too_large);
    EXPECT_FALSE(r.size_is_lower_bound);
    exporter whole(o.rec, export_options{e.format, e.rate, {}, {}, r.size});
    EXPECT_EQ(whole.plan().size, r.size);
    // At 1 GHz neighbouring points share float times: the rows are counted only up to the
    // ceiling, and the size said is a floor.
    e.rate = 1e9;
    const export_result fine = run_export(o.rec, e, out);
    EXPECT_EQ(fine.error, export_error::too_large);
    EXPECT_TRUE(fine.size_is_lower_bound);
    EXPECT_GT(fine.size, e.max_bytes);
    EXPECT_TRUE(out.empty());
}

TEST(Export, AGlbOverFourGibibytesIsItsFormatsRefusal) {
    model m;
    m.blocks = {false, true, false};
    m[hand_state_curve(hand_state::left_tracked)].keys = {{0.0f, 1.0f}, {5e4f, 1.0f}};
    open_source o;
    open_model(m, o);
    export_options e;
    e.max_bytes = std::numeric_limits<std::uint64_t>::max();
    failing_sink sink(0);
    const export_result r = export_recording(o.rec, sink, e);
    EXPECT_EQ(r.error, export_error::glb_too_large);
    EXPECT_GT(r.size, max_glb_bytes);
    EXPECT_EQ(sink.calls, 0u);
    // The same grid as .gltf has no 32-bit lengths: only the ceiling bounds it.
    e.format = export_format::gltf;
    exporter x(o.rec, e);
    EXPECT_FALSE(x.plan().error);
}

TEST(Export, TimesThatOverflowOnceShiftedAreRefusedWithTheGridsEnds) {
    model m;
    m[camera_curve(pose_channel::position_x)].keys = {{-3e38f, 0.0f}, {3e38f, 1.0f}};
    open_source o;
    open_model(m, o);
    export_options e;
    e.rate = 1e-38;
    std::vector<std::byte> out;
    const export_result r = run_export(o.rec, e, out);
    EXPECT_EQ(r.error, export_error::time_overflow);
    EXPECT_EQ(r.first_time, -3e38f);
    EXPECT_EQ(r.last_time, 3e38f);
    EXPECT_EQ(r.time_shift, 3e38f);
    EXPECT_TRUE(out.empty());
}

TEST(Export, EveryNumberOfAGltfIsFiniteOrTheExportIsRefused) {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const float inf = std::numeric_limits<float>::infinity();
    std::vector<std::byte> out;
    {
        model m;
        m[joint_curve(side::right, joint::index_tip, pose_channel::position_z)].keys = {
            {0.0f, 0.0f}, {1.0f, inf}};
        open_source o;
        open_model(m, o);
        const export_result r = run_export(o.rec, export_options{}, out);
        EXPECT_EQ(r.error, export_error::not_finite);
        EXPECT_EQ(r.fault.where, export_fault::place::curve_value);
        EXPECT_EQ(r.fault.curve,
                  joint_curve(side::right, joint::index_tip, pose_channel::position_z));
        // The last grid point is the key itself, infinite; the points before saturate.
        EXPECT_EQ(r.fault.time, 1.0);
        EXPECT_EQ(r.fault.value, inf);
    }
    {
        model m = small_model(shape::v11_compact, false);
        m.markers = std::vector<marker>{{nan, "x"}};
        open_source o;
        open_model(m, o);
        const export_result r = run_export(o.rec, export_options{}, out);
        EXPECT_EQ(r.error, export_error::not_finite);
        EXPECT_EQ(r.fault.where, export_fault::place::marker_time);
        EXPECT_EQ(r.fault.marker, 0u);
    }
    {
        model m = small_model(shape::v11_compact, false);
        m[hand_state_curve(hand_state::left_pinching)].keys = {{0.0f, 1.0f}, {nan, 0.0f}};
        open_source o;
        ASSERT_FALSE(o.rec.open(o.bytes = write(m)));
        export_options e;
        e.from = 0.0;
        e.to = 1.0;
        const export_result r = run_export(o.rec, e, out);
        EXPECT_EQ(r.error, export_error::not_finite);
        EXPECT_EQ(r.fault.where, export_fault::place::key_time);
        EXPECT_EQ(r.fault.curve, hand_state_curve(hand_state::left_pinching));
    }
    EXPECT_TRUE(out.empty());
    // A rotation that is not finite is the identity, normalised like every rotation: no refusal.
    model turned;
    turned[camera_curve(pose_channel::rotation_w)].keys = {{0.0f, nan}, {1.0f, nan}};
    open_source o;
    open_model(turned, o);
    EXPECT_FALSE(run_export(o.rec, export_options{}, out).error);
}

TEST(Export, AUnityClipsRateIsARateToo) {
    open_source o;
    open_model(small_motion(), o);
    std::vector<std::byte> out;
    export_options e;
    e.format = export_format::anim;
    for (const double rate : {std::numeric_limits<double>::quiet_NaN(),
                              std::numeric_limits<double>::infinity(), 0.0, -1.0, 1e-320}) {
        e.rate = rate;
        EXPECT_EQ(run_export(o.rec, e, out).error, grid_error::bad_rate) << rate;
        EXPECT_TRUE(out.empty());
    }
}

// --- names read back as they are ------------------------------------------------------------

TEST(Export, NamesAreEscapedSoThatJsonAndYamlReadThemBackExactly) {
    model m = small_motion();
    // U+0085 (NEL, a line break to YAML 1.1), U+0080 and U+009F (C1), U+2028, U+2029, U+FEFF,
    // U+FDD0 and U+FFFE/U+FFFF (noncharacters), a tab, a quote, a backslash; U+1FFFE and U+00E9
    // are written as they are, and a byte that is not UTF-8 is U+FFFD.
    m.markers = std::vector<marker>{
        {0.5f,
         "a\xc2\x85"
         "b\xc2\x80\xc2\x9f\xe2\x80\xa8\xe2\x80\xa9\xef\xbb\xbf\xef\xb7\x90\xef\xbf\xbe"
         "\xef\xbf\xbf\t\"\\\xf0\x9f\xbf\xbe\xc3\xa9"}};
    open_source o;
    open_model(m, o);
    const std::string body =
        "a\\u0085b\\u0080\\u009f\\u2028\\u2029\\ufeff\\ufdd0\\ufffe\\uffff\\u0009\\\"\\\\"
        "\xf0\x9f\xbf\xbe\xc3\xa9";
    std::vector<std::byte> out;
    export_options e;
    e.format = export_format::gltf;
    ASSERT_FALSE(run_export(o.rec, e, out).error);
    EXPECT_NE(text_of(out).find("\"name\":\"" + body + "\"}"), std::string::npos);
    e.format = export_format::anim;
    ASSERT_FALSE(run_export(o.rec, e, out).error);
    EXPECT_NE(text_of(out).find("    data: \"" + body + "\"\n"), std::string::npos);

    // Bytes that are not UTF-8 (a file read at level structure).
    m.markers = std::vector<marker>{{0.5f, std::string("x\xff\xc3", 3)}};
    open_source bad;
    ASSERT_FALSE(bad.rec.open(bad.bytes = write(m)));
    ASSERT_FALSE(run_export(bad.rec, e, out).error);
    EXPECT_NE(text_of(out).find("    data: \"x\\ufffd\\ufffd\"\n"), std::string::npos);
}
