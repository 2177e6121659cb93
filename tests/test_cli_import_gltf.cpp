// `inputanim import` of glTF, run as a user runs it: `export` then `import` then `sample` gives the
// original's `sample` at the export's rate; a .gltf's external buffer is read from its own folder
// and nowhere else; what is refused writes nothing.
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "support/cli_fixture.hpp"
#include "support/gltf_builder.hpp"

using namespace inputanim;
using namespace inputanim::testing;
using nlohmann::json;

namespace {

std::vector<std::string> split(const std::string& line) {
    std::vector<std::string> fields;
    std::stringstream s(line);
    for (std::string f; std::getline(s, f, ',');) fields.push_back(f);
    return fields;
}

class ImportGltfCli : public cli_fixture {
  protected:
    std::string sample(const std::string& name) const {
        const run_result r = run({"sample", path(name), "--rate", "60"});
        EXPECT_EQ(r.status, 0) << r.err;
        return r.out;
    }
    void run_ok(const std::vector<std::string>& args) const {
        const run_result r = run(args);
        ASSERT_EQ(r.status, 0) << r.err;
    }
    // `import` refused with exit status 1 and `message`, OUT not written.
    void expect_refused(const std::string& in, const std::string& message) const {
        const run_result r = run({"import", path(in), path("refused.bin")});
        EXPECT_EQ(r.status, 1) << in;
        EXPECT_NE(r.err.find(message), std::string::npos) << r.err;
        EXPECT_FALSE(std::filesystem::exists(path("refused.bin"))) << in;
    }
};

// Two CSV tables of `sample` alike within 1e-5, the None joint left out (it is not exported),
// rotations and gaze directions of `original` normalised as the export writes them (MRTK's
// component-wise interpolation between unit keys is shorter than unit).
void expect_same_samples(const std::string& original, const std::string& back) {
    std::stringstream a(original), b(back);
    std::string la, lb;
    ASSERT_TRUE(std::getline(a, la) && std::getline(b, lb));
    ASSERT_EQ(la, lb);
    const std::vector<std::string> header = split(la);
    std::size_t rows = 0;
    double worst = 0.0;
    std::string where;
    while (std::getline(a, la)) {
        ASSERT_TRUE(std::getline(b, lb)) << "fewer rows imported";
        const std::vector<std::string> fa = split(la), fb = split(lb);
        ASSERT_EQ(fa.size(), header.size());
        ASSERT_EQ(fb.size(), header.size());
        std::vector<double> va(fa.size());
        for (std::size_t c = 0; c < fa.size(); ++c) va[c] = std::stod(fa[c]);
        for (std::size_t c = 0; c < header.size(); ++c) {
            const bool rotation = header[c].ends_with("rotation.x");
            if (!rotation && !header[c].ends_with("direction.x")) continue;
            const std::size_t n = rotation ? 4 : 3;
            double length = 0.0;
            for (std::size_t i = 0; i < n; ++i) length += va[c + i] * va[c + i];
            length = std::sqrt(length);
            for (std::size_t i = 0; i < n && length > 0.0; ++i) va[c + i] /= length;
        }
        for (std::size_t c = 0; c < header.size(); ++c) {
            if (header[c].find(".None.") != std::string::npos) continue;
            const double d = std::abs(va[c] - std::stod(fb[c]));
            if (d > worst) {
                worst = d;
                where = header[c] + " at " + fa[0];
            }
        }
        ++rows;
    }
    EXPECT_FALSE(std::getline(b, lb)) << "more rows imported";
    EXPECT_GT(rows, 60u);
    EXPECT_LE(worst, 1e-5) << where;
}

}  // namespace

TEST_F(ImportGltfCli, ExportThenImportThenSampleGivesTheOriginalsSample) {
    const std::vector<std::vector<std::string>> recordings = {
        {"--version", "1.0"}, {"--markers", "3"}, {"--layout", "full"}, {"--no-gaze"}};
    for (const std::vector<std::string>& how : recordings) {
        SCOPED_TRACE(::testing::PrintToString(how));
        std::vector<std::string> gen = {"gen", "-o", path("in.bin"), "--seconds", "1.5"};
        gen.insert(gen.end(), how.begin(), how.end());
        run_ok(gen);
        const std::string table = sample("in.bin");
        for (const char* ext : {".glb", ".gltf"}) {
            run_ok({"export", path("in.bin"), path(std::string("take") + ext)});
            const run_result r = run({"import", path(std::string("take") + ext), path("out.bin")});
            ASSERT_EQ(r.status, 0) << r.err;
            EXPECT_EQ(r.err, "");
            expect_same_samples(table, sample("out.bin"));
            // Every pose within diff's tolerances and the same tracked and pinch intervals.
            const run_result d = run({"diff", path("in.bin"), path("out.bin"), "--json"});
            ASSERT_NE(d.status, 2) << d.err;
            const nlohmann::json j = nlohmann::json::parse(d.out);
            for (const nlohmann::json& pose : j["motion"]) {
                EXPECT_EQ(pose["first_exceeded"], nullptr) << pose["name"] << ext;
            }
            EXPECT_EQ(j["state"]["count"], 0) << ext;
        }
    }
}

TEST_F(ImportGltfCli, AGltfsExternalBufferIsReadFromItsOwnFolder) {
    run_ok({"gen", "-o", path("in.bin"), "--seconds", "1"});
    run_ok({"export", path("in.bin"), path("take.gltf")});
    run_ok({"import", path("take.gltf"), path("embedded.bin")});
    // The buffer moved out of its data URI into a file beside the .gltf, in a folder of its own.
    json doc = json::parse(read_text("take.gltf"));
    const std::string uri = doc["buffers"][0]["uri"];
    std::filesystem::create_directories(path("scene/data"));
    write_text("scene/data/take.bin", [&] {
        const std::string b64 = uri.substr(uri.find(',') + 1);
        std::string raw;
        std::uint32_t bits = 0;
        int held = 0;
        for (const char c : b64) {
            const std::string alphabet =
                "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
            const std::size_t d = alphabet.find(c);
            if (d == std::string::npos) break;
            bits = (bits << 6) | static_cast<std::uint32_t>(d);
            held += 6;
            if (held >= 8) {
                held -= 8;
                raw.push_back(static_cast<char>((bits >> held) & 0xff));
            }
        }
        return raw;
    }());
    doc["buffers"][0]["uri"] = "data/take.bin";
    write_text("scene/take.gltf", doc.dump());
    // Run from another folder: the URI is the .gltf's folder's, not the working folder's.
    run_ok({"import", path("scene/take.gltf"), path("external.bin")});
    EXPECT_EQ(read_text("external.bin"), read_text("embedded.bin"));

    // The buffer is an input too: an OUT that is it is refused, and the buffer left as it was.
    const std::string buffer = read_text("scene/data/take.bin");
    run_result r = run({"import", path("scene/take.gltf"), path("scene/data/take.bin")});
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("it is the input file itself"), std::string::npos) << r.err;
    EXPECT_EQ(read_text("scene/data/take.bin"), buffer);
    // A buffer that is not there is named.
    doc["buffers"][0]["uri"] = "data/gone.bin";
    write_text("scene/gone.gltf", doc.dump());
    r = run({"import", path("scene/gone.gltf"), path("gone.bin")});
    EXPECT_EQ(r.status, 3);
    EXPECT_NE(r.err.find("data/gone.bin: No such file or directory"), std::string::npos) << r.err;
    EXPECT_FALSE(std::filesystem::exists(path("gone.bin")));

    // Out of the folder, however spelled, is refused and writes nothing.
    std::filesystem::copy_file(path("scene/data/take.bin"), path("take.bin"));
    for (const std::string& outside :
         std::vector<std::string>{"../take.bin", "data/../../take.bin", "%2E%2E/take.bin",
                                  "file:///" + path("take.bin"), path("take.bin")}) {
        doc["buffers"][0]["uri"] = outside;
        write_text("scene/outside.gltf", doc.dump());
        expect_refused("scene/outside.gltf", "a buffer URI outside the glTF's folder");
    }
    // Standard input has no folder.
    doc["buffers"][0]["uri"] = "data/take.bin";
    write_text("scene/take.gltf", doc.dump());
    const std::string line = "'" + std::string(INPUTANIM_CLI) + "' import - '" + path("stdin.bin") +
                             "' --format gltf < '" + path("scene/take.gltf") + "'";
    r = run_process({"/bin/sh", "-c", line}, {path("")});
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("is an external file"), std::string::npos) << r.err;
    EXPECT_FALSE(std::filesystem::exists(path("stdin.bin")));
}

TEST_F(ImportGltfCli, WhatIsRefusedWritesNothing) {
    gltf_builder b;
    const int head = b.node("head");
    b.channel(head, "translation", b.floats({0.0f, 1.0f}, "SCALAR"),
              b.floats({1, 2, 3, 4, 5, 6}, "VEC3"));
    gltf_builder nan;
    nan.channel(nan.node("head"), "translation",
                nan.floats({0.0f, std::numeric_limits<float>::quiet_NaN()}, "SCALAR"),
                nan.floats({1, 2, 3, 4, 5, 6}, "VEC3"));
    write_text("nan.gltf", nan.gltf());
    expect_refused("nan.gltf", "a key time or value is not finite: camera.position.x key 1");

    gltf_builder cube;
    cube.channel(cube.node("Cube"), "translation", cube.floats({0.0f}, "SCALAR"),
                 cube.floats({1, 2, 3}, "VEC3"));
    const std::vector<std::byte> glb = cube.glb();
    write_text("cube.glb", std::string(reinterpret_cast<const char*>(glb.data()), glb.size()));
    expect_refused("cube.glb",
                   "none of the nodes an exported recording has: expected the nodes "
                   "head, gaze, hand.left, hand.right");

    gltf_builder sparse = b;
    sparse.doc["accessors"][1]["sparse"] = {
        {"count", 1},
        {"indices", {{"bufferView", 0}, {"componentType", 5125}}},
        {"values", {{"bufferView", 1}}}};
    write_text("sparse.gltf", sparse.gltf());
    expect_refused("sparse.gltf", "a sparse accessor");

    gltf_builder out_of_range = b;
    out_of_range.doc["animations"][0]["samplers"][0]["output"] = 9;
    write_text("range.gltf", out_of_range.gltf());
    expect_refused("range.gltf", "an accessor the animation cannot be read from");

    gltf_builder backwards;
    backwards.channel(backwards.node("head"), "translation",
                      backwards.floats({1.0f, 0.5f}, "SCALAR"),
                      backwards.floats({1, 2, 3, 4, 5, 6}, "VEC3"));
    write_text("backwards.gltf", backwards.gltf());
    expect_refused("backwards.gltf", "a curve's key times do not increase");

    gltf_builder past = b;
    past.doc["buffers"] = {{{"byteLength", b.bin.size() + 4}}};
    const std::vector<std::byte> past_glb = past.glb();
    write_text("past.glb",
               std::string(reinterpret_cast<const char*>(past_glb.data()), past_glb.size()));
    expect_refused("past.glb", "past the .glb's binary chunk");

    gltf_builder huge = b;
    huge.doc["buffers"] = {{{"byteLength", 1u << 30}, {"uri", "huge.bin"}}};
    write_text("huge.gltf", huge.gltf());
    const run_result r =
        run({"import", path("huge.gltf"), path("refused.bin"), "--max-bytes", "1048576"});
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("the input is larger than allowed: buffer 0: 1073741824 bytes"),
              std::string::npos)
        << r.err;
    EXPECT_FALSE(std::filesystem::exists(path("refused.bin")));

    gltf_builder not_base64 = b;
    not_base64.doc["buffers"] = {{{"byteLength", b.bin.size()}, {"uri", "data:,plain text"}}};
    write_text("text.gltf", not_base64.gltf());
    expect_refused("text.gltf", "a data URI that is not base64");
}

TEST_F(ImportGltfCli, TheKeyCeilingRefusesABillionKeysBeforeReadingThem) {
    gltf_builder b;
    const int head = b.node("head");
    b.channel(head, "translation", b.floats({0.0f, 1.0f}, "SCALAR"),
              b.floats({1, 2, 3, 4, 5, 6}, "VEC3"));
    b.doc["accessors"][0]["count"] = 1000000000;
    b.doc["accessors"][1]["count"] = 1000000000;
    write_text("billion.gltf", b.gltf());
    const run_result r = run(
        {"import", path("billion.gltf"), path("out.bin"), "--max-keyframes-per-curve", "100000"});
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("1000000000 keys, more than --max-keyframes-per-curve 100000"),
              std::string::npos)
        << r.err;
    EXPECT_FALSE(std::filesystem::exists(path("out.bin")));
}
