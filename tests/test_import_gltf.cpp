// The glTF importer (import.hpp): `export` then `import` samples as the original does on the
// export's grid, for every version, layout and block choice; glTF's interpolations become the
// keys MRTK evaluates the same way; the names Blender gives the nodes; the extras.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "inputanim/export.hpp"
#include "inputanim/import.hpp"
#include "support/encoder_sinks.hpp"
#include "support/generated.hpp"
#include "support/gltf_builder.hpp"
#include "support/run_process.hpp"

using namespace inputanim;
using namespace inputanim::testing;

namespace {

std::vector<std::byte> exported(const std::vector<std::byte>& file, export_format f, double rate) {
    recording rec;
    EXPECT_FALSE(rec.open(file));
    std::vector<std::byte> out;
    vector_sink sink(out);
    export_options o;
    o.format = f;
    o.rate = rate;
    const export_result r = export_recording(rec, sink, o);
    EXPECT_FALSE(r.error) << r.error.message();
    return out;
}

model imported(std::span<const std::byte> bytes, import_format f) {
    model m;
    const import_result r = import_model(bytes, f, m);
    EXPECT_FALSE(r.error) << r.error.message() << ": " << r.detail;
    return m;
}

model imported(const std::string& text, import_format f = import_format::gltf) {
    return imported(bytes_of(text), f);
}

// Every curve of `original` but the None joint's, sampled at `rate` from its first key time to
// its duration, against the same grid of `back`: within `tolerance`. The export writes rotations
// normalised and the gaze as a rotation of +z (docs/EXPORT.md), so the original's rotations and
// gaze direction are compared normalised: between keys, MRTK's component-wise interpolation of
// unit quaternions and directions is shorter than unit.
void expect_samples_equal(const std::vector<std::byte>& original, const model& back, double rate,
                          double tolerance = 1e-5) {
    recording a;
    ASSERT_FALSE(a.open(original));
    const std::vector<std::byte> written = write(back);
    recording b;
    ASSERT_FALSE(b.open(written));
    std::vector<curve_id> ids;
    for (std::size_t i = 0; i < curve_count(a.header().blocks); ++i) {
        const curve_id id = curve_at(a.header().blocks, i);
        if (std::string_view(curve_path(id)).find(".None.") == std::string_view::npos) {
            ids.push_back(id);
        }
    }
    resampler ra(a), rb(b);
    ASSERT_EQ(ra.select(ids), ids.size());
    ASSERT_EQ(rb.select(ids), ids.size());
    ASSERT_EQ(ra.set_grid(rate), grid_error::none);
    ASSERT_EQ(rb.set_grid(rate, ra.row_time(0), a.summary().duration), grid_error::none);
    ASSERT_EQ(ra.row_count(), rb.row_count());
    // The first column of each run of components compared normalised, and its length.
    std::vector<std::pair<std::size_t, std::size_t>> units;
    for (std::size_t c = 0; c < ids.size(); ++c) {
        const std::string_view p = curve_path(ids[c]);
        if (p.ends_with("rotation.x")) units.emplace_back(c, 4);
        if (p.ends_with("direction.x")) units.emplace_back(c, 3);
    }
    std::vector<float> va(ids.size()), vb(ids.size());
    double worst = 0.0;
    std::string where;
    while (const std::optional<float> t = ra.next(va)) {
        ASSERT_EQ(rb.next(vb), t);
        for (const auto& [first, n] : units) {
            double length = 0.0;
            for (std::size_t i = 0; i < n; ++i) length += double(va[first + i]) * va[first + i];
            length = std::sqrt(length);
            for (std::size_t i = 0; i < n && length > 0.0; ++i) {
                va[first + i] = static_cast<float>(va[first + i] / length);
            }
        }
        for (std::size_t c = 0; c < ids.size(); ++c) {
            const double d = std::abs(static_cast<double>(va[c]) - vb[c]);
            if (d > worst) {
                worst = d;
                where = std::string(curve_path(ra.curves()[c])) + " at " + std::to_string(*t);
            }
        }
    }
    EXPECT_LE(worst, tolerance) << where;
}

struct variant {
    const char* name;
    int minor;
    layout lay;
    bool gaze;
    int markers;
};

}  // namespace

TEST(ImportGltf, ExportThenImportSamplesAsTheOriginalOnTheExportsGrid) {
    for (const variant& v : {variant{"v1.0", 0, layout::full, false, 3},
                             variant{"v1.1 compact", 1, layout::compact, true, 3},
                             variant{"v1.1 full", 1, layout::full, true, 2},
                             variant{"v1.1 compact, no markers", 1, layout::compact, true, 0},
                             variant{"v1.1 compact, no gaze", 1, layout::compact, false, 1}}) {
        SCOPED_TRACE(v.name);
        generate_options g;
        g.seconds = 1.5;
        g.minor = v.minor;
        g.layout = v.lay;
        g.blocks.gaze = v.gaze;
        g.markers = v.markers;
        const model original = generated_model(g);
        const std::vector<std::byte> file = write(original);
        for (const export_format f : {export_format::glb, export_format::gltf}) {
            const model back =
                imported(exported(file, f, 60.0),
                         f == export_format::glb ? import_format::glb : import_format::gltf);
            expect_samples_equal(file, back, 60.0);
            EXPECT_EQ(back.blocks.gaze, v.gaze);
            EXPECT_TRUE(back.blocks.camera && back.blocks.hands);
            // The None joint is not exported.
            EXPECT_TRUE(
                back[joint_curve(side::left, joint::none, pose_channel::position_x)].keys.empty());
            ASSERT_TRUE(back.markers.has_value());
            ASSERT_EQ(back.markers->size(), original.markers->size());
            for (std::size_t i = 0; i < back.markers->size(); ++i) {
                EXPECT_EQ((*back.markers)[i].name, (*original.markers)[i].name);
                EXPECT_NEAR((*back.markers)[i].time, (*original.markers)[i].time, 1e-6);
            }
        }
    }
}

TEST(ImportGltf, AnExportAtAnotherRateSamplesAsTheOriginalOnItsGrid) {
    generate_options g;
    g.seconds = 1;
    const std::vector<std::byte> file = write(generated_model(g));
    expect_samples_equal(
        file, imported(exported(file, export_format::glb, 24.0), import_format::glb), 24.0);
}

TEST(ImportGltf, TheExportsTimeShiftIsUndone) {
    // MRTK 2.0-2.5 keeps a key from before the buffer's start: the export shifts to 0.
    generate_options g;
    g.seconds = 1;
    g.markers = 2;
    model original = generated_model(g);
    for (curve& c : original.curves) {
        for (keyframe& k : c.keys) k.time -= 0.25f;
    }
    for (marker& m : *original.markers) m.time -= 0.25f;
    const std::vector<std::byte> file = write(original);
    const model back = imported(exported(file, export_format::glb, 60.0), import_format::glb);
    expect_samples_equal(file, back, 60.0);
    EXPECT_FLOAT_EQ(back[camera_curve(pose_channel::position_x)].keys.front().time, -0.25f);
    EXPECT_NEAR((*back.markers)[0].time, (*original.markers)[0].time, 1e-6);
}

TEST(ImportGltf, LinearKeysAreMrtksLinearKeysAndTheLayoutCompact) {
    gltf_builder b;
    const int head = b.node("head");
    const int t = b.floats({0.0f, 1.0f}, "SCALAR");
    b.channel(head, "translation", t, b.floats({1, 2, 3, 3, 2, 1}, "VEC3"));
    const model m = imported(b.gltf());
    EXPECT_EQ(m.layout, layout::compact);
    const std::vector<keyframe>& x = m[camera_curve(pose_channel::position_x)].keys;
    ASSERT_EQ(x.size(), 2u);
    // x mirrored back to Unity's left-handed frame.
    EXPECT_EQ(x[0], (keyframe{0.0f, -1.0f}));
    EXPECT_EQ(x[1], (keyframe{1.0f, -3.0f}));
    EXPECT_EQ(m[camera_curve(pose_channel::position_z)].keys[1], (keyframe{1.0f, 1.0f}));
    // The rotation, never animated, is the node's rest rotation at the animation's first time.
    EXPECT_EQ(m[camera_curve(pose_channel::rotation_w)].keys,
              (std::vector<keyframe>{{0.0f, 1.0f}}));
    EXPECT_FALSE(m.blocks.hands);
    EXPECT_FALSE(m.blocks.gaze);
}

TEST(ImportGltf, StepKeysAreConstantKeys) {
    gltf_builder b;
    const int head = b.node("head");
    b.channel(head, "translation", b.floats({0.0f, 1.0f}, "SCALAR"),
              b.floats({1, 2, 3, 4, 5, 6}, "VEC3"), "STEP");
    const model m = imported(b.gltf());
    EXPECT_EQ(m.layout, layout::full);
    const std::vector<keyframe>& y = m[camera_curve(pose_channel::position_y)].keys;
    ASSERT_EQ(y.size(), 2u);
    for (const keyframe& k : y) {
        EXPECT_EQ(k.in_tangent, std::numeric_limits<float>::infinity());
        EXPECT_EQ(k.out_tangent, std::numeric_limits<float>::infinity());
    }
    const std::vector<std::byte> file = write(m);
    recording rec;
    ASSERT_FALSE(rec.open(file));
    EXPECT_EQ(evaluate(*rec.find(camera_curve(pose_channel::position_y)), 0.99f), 2.0f);
    EXPECT_EQ(evaluate(*rec.find(camera_curve(pose_channel::position_y)), 1.0f), 5.0f);
}

TEST(ImportGltf, CubicSplineKeysAreHermiteKeysWithTheTangentsPerSecondAndMirrored) {
    gltf_builder b;
    const int head = b.node("head");
    // Two keys 2 s apart; per key in-tangent, value, out-tangent.
    b.channel(head, "translation", b.floats({1.0f, 3.0f}, "SCALAR"),
              b.floats({0, 0, 0, 1, 0, 0, 2, 0, 0,  //
                        -1, 0, 0, 3, 0, 0, 0, 0, 0},
                       "VEC3"),
              "CUBICSPLINE");
    const model m = imported(b.gltf());
    const std::vector<keyframe>& x = m[camera_curve(pose_channel::position_x)].keys;
    ASSERT_EQ(x.size(), 2u);
    EXPECT_EQ(x[0].value, -1.0f);
    EXPECT_EQ(x[0].out_tangent, -2.0f);
    EXPECT_EQ(x[1].in_tangent, 1.0f);
    EXPECT_EQ(x[1].value, -3.0f);
    // glTF at s = 1/4 of the segment (td = 2): h00 p0 + h10 td b0 + h01 p1 + h11 td a1, then
    // mirrored.
    const double s = 0.25, td = 2.0;
    const double h00 = 2 * s * s * s - 3 * s * s + 1, h10 = s * s * s - 2 * s * s + s;
    const double h01 = -2 * s * s * s + 3 * s * s, h11 = s * s * s - s * s;
    const double gltf = h00 * 1 + h10 * td * 2 + h01 * 3 + h11 * td * -1;
    const std::vector<std::byte> file = write(m);
    recording rec;
    ASSERT_FALSE(rec.open(file));
    EXPECT_NEAR(evaluate(*rec.find(camera_curve(pose_channel::position_x)), 1.5f), -gltf, 1e-6);
}

TEST(ImportGltf, RotationsAreMirroredAsExportMirrorsThem) {
    gltf_builder b;
    const int head = b.node("head");
    b.channel(head, "rotation", b.floats({0.0f}, "SCALAR"),
              b.floats({0.1f, 0.2f, 0.3f, 0.927362f}, "VEC4"));
    const model m = imported(b.gltf());
    EXPECT_FLOAT_EQ(m[camera_curve(pose_channel::rotation_x)].keys[0].value, 0.1f);
    EXPECT_FLOAT_EQ(m[camera_curve(pose_channel::rotation_y)].keys[0].value, -0.2f);
    EXPECT_FLOAT_EQ(m[camera_curve(pose_channel::rotation_z)].keys[0].value, -0.3f);
    EXPECT_FLOAT_EQ(m[camera_curve(pose_channel::rotation_w)].keys[0].value, 0.927362f);
}

TEST(ImportGltf, TheGazeIsItsNodesPositionAndPlusZTurned) {
    gltf_builder b;
    const int gaze = b.node("gaze");
    const int t = b.floats({0.0f}, "SCALAR");
    b.channel(gaze, "translation", t, b.floats({1, 2, 3}, "VEC3"));
    // A quarter turn about y: +z becomes +x in glTF, -x in Unity.
    const float h = std::sqrt(0.5f);
    b.channel(gaze, "rotation", t, b.floats({0, h, 0, h}, "VEC4"));
    const model m = imported(b.gltf());
    ASSERT_TRUE(m.blocks.gaze);
    EXPECT_EQ(m[gaze_curve(ray_channel::origin_x)].keys[0].value, -1.0f);
    EXPECT_NEAR(m[gaze_curve(ray_channel::direction_x)].keys[0].value, -1.0f, 1e-6);
    EXPECT_NEAR(m[gaze_curve(ray_channel::direction_y)].keys[0].value, 0.0f, 1e-6);
    EXPECT_NEAR(m[gaze_curve(ray_channel::direction_z)].keys[0].value, 0.0f, 1e-6);
}

TEST(ImportGltf, AHandsScaleAboveOneHalfIsTracked) {
    // Blender resamples the scale: values between 0 and 1.
    gltf_builder b;
    const int hand = b.node("hand.right");
    b.channel(
        hand, "scale", b.floats({0.0f, 0.1f, 0.2f, 0.3f}, "SCALAR"),
        b.floats({0.2f, 0.2f, 0.2f, 0.7f, 0.7f, 0.7f, 0.9f, 0.9f, 0.9f, 0.4f, 0.4f, 0.4f}, "VEC3"));
    const model m = imported(b.gltf());
    ASSERT_TRUE(m.blocks.hands);
    EXPECT_EQ(m[hand_state_curve(hand_state::right_tracked)].keys,
              (std::vector<keyframe>{{0.0f, 0.0f}, {0.1f, 1.0f}, {0.3f, 0.0f}}));
    // The other hand, without a node, is never tracked; no pinch without the export's extras.
    EXPECT_EQ(m[hand_state_curve(hand_state::left_tracked)].keys,
              (std::vector<keyframe>{{0.0f, 0.0f}}));
    EXPECT_EQ(m[hand_state_curve(hand_state::right_pinching)].keys,
              (std::vector<keyframe>{{0.0f, 0.0f}}));
}

TEST(ImportGltf, JointsAreFoundThroughTheirHandWithBlendersSuffix) {
    gltf_builder b;
    const int left = b.node("hand.left");
    const int right = b.node("hand.right");
    b.node("IndexTip", left);
    const int tip = b.node("IndexTip.001", right);
    b.doc["nodes"][tip]["translation"] = {0.5, 0.25, 0.125};
    b.channel(right, "scale", b.floats({0.0f}, "SCALAR"), b.floats({1, 1, 1}, "VEC3"));
    const import_result r = [&] {
        model m;
        const import_result res = import_model(bytes_of(b.gltf()), import_format::gltf, m);
        EXPECT_EQ(m[joint_curve(side::right, joint::index_tip, pose_channel::position_x)].keys,
                  (std::vector<keyframe>{{0.0f, -0.5f}}));
        EXPECT_EQ(m[joint_curve(side::right, joint::index_tip, pose_channel::position_z)].keys,
                  (std::vector<keyframe>{{0.0f, 0.125f}}));
        EXPECT_TRUE(
            m[joint_curve(side::right, joint::wrist, pose_channel::position_x)].keys.empty());
        return res;
    }();
    ASSERT_FALSE(r.error) << r.detail;
    // The joints a hand lacks are named.
    bool named = false;
    for (const std::string& w : r.warnings) named |= w == "hand.right: no joint Wrist";
    EXPECT_TRUE(named);
}

TEST(ImportGltf, AParentsTransformIsAppliedToTheNodesBelowIt) {
    // Blender may put the scene under a root of its own.
    gltf_builder b;
    const int root = b.node("Root");
    b.doc["nodes"][root]["translation"] = {1.0, 0.0, 0.0};
    // A quarter turn about y: glTF's +z becomes +x.
    b.doc["nodes"][root]["rotation"] = {0.0, std::sqrt(0.5), 0.0, std::sqrt(0.5)};
    b.doc["nodes"][root]["scale"] = {2.0, 2.0, 2.0};
    const int head = b.node("head", root);
    b.channel(head, "translation", b.floats({0.0f}, "SCALAR"), b.floats({0, 0, 1}, "VEC3"));
    const model m = imported(b.gltf());
    // (0, 0, 1) turned is (1, 0, 0), scaled (2, 0, 0), moved (3, 0, 0); Unity's x is -3.
    EXPECT_NEAR(m[camera_curve(pose_channel::position_x)].keys[0].value, -3.0f, 1e-6);
    EXPECT_NEAR(m[camera_curve(pose_channel::position_z)].keys[0].value, 0.0f, 1e-6);
    // The head's rotation is the root's, mirrored: (0, -sqrt(1/2), 0, sqrt(1/2)).
    EXPECT_NEAR(m[camera_curve(pose_channel::rotation_y)].keys[0].value, -std::sqrt(0.5f), 1e-6);
}

TEST(ImportGltf, MarkersAndPinchesComeFromTheExtras) {
    gltf_builder b;
    const int hand = b.node("hand.left");
    b.channel(hand, "scale", b.floats({0.0f, 2.0f}, "SCALAR"),
              b.floats({1, 1, 1, 1, 1, 1}, "VEC3"));
    b.doc["asset"]["extras"]["inputanim"] = {{"timeShift", 0.5}, {"duration", 1.5}};
    b.doc["animations"][0]["extras"] = {
        {"markers", {{{"time", 1.0}, {"name", "tap"}}}},
        {"pinch", {{"left", {{0.5, 1.0}, {1.5, 2.0}}}, {"right", nlohmann::json::array()}}}};
    const model m = imported(b.gltf());
    ASSERT_TRUE(m.markers.has_value());
    EXPECT_EQ(*m.markers, (std::vector<marker>{{0.5f, "tap"}}));
    // Times shifted back by 0.5, from the animation's first (-0.5); the interval still on at the
    // duration (1.5) has no end key.
    EXPECT_EQ(m[hand_state_curve(hand_state::left_pinching)].keys,
              (std::vector<keyframe>{{-0.5f, 0.0f}, {0.0f, 1.0f}, {0.5f, 0.0f}, {1.0f, 1.0f}}));
    EXPECT_EQ(m[hand_state_curve(hand_state::right_pinching)].keys,
              (std::vector<keyframe>{{-0.5f, 0.0f}}));
}

TEST(ImportGltf, AFileWithoutExtrasHasNoMarkers) {
    gltf_builder b;
    const int head = b.node("head");
    b.channel(head, "translation", b.floats({0.0f}, "SCALAR"), b.floats({1, 2, 3}, "VEC3"));
    const model m = imported(b.glb(), import_format::glb);
    ASSERT_TRUE(m.markers.has_value());
    EXPECT_TRUE(m.markers->empty());
}

TEST(ImportGltf, GlbAndGltfOfOneDocumentImportAlike) {
    gltf_builder b;
    const int head = b.node("head");
    b.channel(head, "translation", b.floats({0.0f, 0.5f}, "SCALAR"),
              b.floats({1, 2, 3, 4, 5, 6}, "VEC3"));
    EXPECT_EQ(imported(b.glb(), import_format::glb), imported(b.gltf()));
}

TEST(ImportGltf, FolderFilesReadsAGltfsExternalBuffer) {
    scratch_folder dir;
    gltf_builder b;
    const int head = b.node("head");
    b.channel(head, "translation", b.floats({0.0f}, "SCALAR"), b.floats({1, 2, 3}, "VEC3"));
    b.doc["buffers"] = {{{"byteLength", b.bin.size()}, {"uri", "data%20files/take.bin"}}};
    std::filesystem::create_directories(dir.path() / "data files");
    std::ofstream(dir.path() / "data files" / "take.bin", std::ios::binary)
        .write(reinterpret_cast<const char*>(b.bin.data()),
               static_cast<std::streamsize>(b.bin.size()));
    folder_files files(dir.path());
    model m;
    const std::string text = b.gltf();
    const import_result r = import_model(bytes_of(text), import_format::gltf, m, {}, &files);
    ASSERT_FALSE(r.error) << r.detail;
    EXPECT_EQ(m[camera_curve(pose_channel::position_y)].keys,
              (std::vector<keyframe>{{0.0f, 2.0f}}));
}

TEST(ImportGltf, AnAncestorThatDoesNotMoveIsItsPose) {
    // Blender keys a hand moved in it once, at its new place.
    gltf_builder b;
    const int hand = b.node("hand.right");
    const int tip = b.node("IndexTip", hand);
    b.doc["nodes"][tip]["translation"] = {0.5, 0.25, 0.125};
    b.channel(hand, "translation", b.floats({0.0f}, "SCALAR"), b.floats({0.25f, 0, 0}, "VEC3"),
              "STEP");
    const model m = imported(b.gltf());
    EXPECT_EQ(m[joint_curve(side::right, joint::index_tip, pose_channel::position_x)].keys,
              (std::vector<keyframe>{{0.0f, -0.75f}}));
}

TEST(ImportGltf, AnAncestorThatMovesMovesItsChildrenAtTheirKeys) {
    // The hand moves from x = 0 at 0 s to 1 at 2 s, turning a quarter about y on the way.
    gltf_builder b;
    const int hand = b.node("hand.left");
    const int wrist = b.node("Wrist", hand);
    const int palm = b.node("Palm", hand);
    b.doc["nodes"][palm]["translation"] = {0.0, 0.0, 1.0};
    const int hand_times = b.floats({0.0f, 2.0f}, "SCALAR");
    b.channel(hand, "translation", hand_times, b.floats({0, 0, 0, 1, 0, 0}, "VEC3"));
    const float h = std::sqrt(0.5f);
    b.channel(hand, "rotation", hand_times, b.floats({0, 0, 0, 1, 0, h, 0, h}, "VEC4"));
    // The wrist has keys of its own, at 0 and 1 s: the hand is sampled there.
    b.channel(wrist, "translation", b.floats({0.0f, 1.0f}, "SCALAR"),
              b.floats({0, 0, 1, 0, 0, 1}, "VEC3"));
    const model m = imported(b.gltf());
    const std::vector<keyframe>& wx =
        m[joint_curve(side::left, joint::wrist, pose_channel::position_x)].keys;
    const std::vector<keyframe>& wz =
        m[joint_curve(side::left, joint::wrist, pose_channel::position_z)].keys;
    ASSERT_EQ(wx.size(), 2u);
    // At 0 s: (0, 0, 1). At 1 s the hand is at x = 0.5, turned an eighth (slerp): +z becomes
    // (sin 45, 0, cos 45); Unity mirrors x.
    EXPECT_NEAR(wx[0].value, 0.0f, 1e-6);
    EXPECT_NEAR(wz[0].value, 1.0f, 1e-6);
    EXPECT_NEAR(wx[1].value, -(0.5f + h), 1e-6);
    EXPECT_NEAR(wz[1].value, h, 1e-6);
    // The palm has no channel: its rest place, moved at each of the hand's keys.
    const std::vector<keyframe>& px =
        m[joint_curve(side::left, joint::palm, pose_channel::position_x)].keys;
    ASSERT_EQ(px.size(), 2u);
    EXPECT_EQ(px[1].time, 2.0f);
    EXPECT_NEAR(px[1].value, -2.0f, 1e-6);
}

TEST(ImportGltf, RotationsMayBeNormalizedIntegersAsGltfAllows) {
    gltf_builder b;
    const int head = b.node("head");
    const int times = b.floats({0.0f}, "SCALAR");
    // (0, 16384, 0, -32768) as normalized shorts: (0, 16384 / 32767, 0, -1).
    const std::size_t at = b.bin.size();
    for (const std::uint16_t v : {0, 16384, 0, 32768}) {
        b.bin.push_back(static_cast<std::byte>(v & 0xff));
        b.bin.push_back(static_cast<std::byte>(v >> 8));
    }
    b.doc["bufferViews"].push_back({{"buffer", 0}, {"byteOffset", at}, {"byteLength", 8}});
    b.doc["accessors"].push_back({{"bufferView", b.doc["bufferViews"].size() - 1},
                                  {"componentType", 5122},
                                  {"normalized", true},
                                  {"count", 1},
                                  {"type", "VEC4"}});
    b.channel(head, "rotation", times, static_cast<int>(b.doc["accessors"].size() - 1));
    const model m = imported(b.gltf());
    EXPECT_FLOAT_EQ(m[camera_curve(pose_channel::rotation_y)].keys[0].value, -16384.0f / 32767);
    EXPECT_EQ(m[camera_curve(pose_channel::rotation_w)].keys[0].value, -1.0f);
    // Integers that are not normalized are no rotation glTF allows.
    b.doc["accessors"].back()["normalized"] = false;
    model refused;
    EXPECT_EQ(import_model(bytes_of(b.gltf()), import_format::gltf, refused).error,
              import_error::bad_accessor);
}
