// What the glTF importer refuses, each with its import_error: a document that is not glTF, the
// accessors, buffers and samplers an animation cannot be read from, URIs outside the .gltf's
// folder, sizes past the options' ceilings (checked before the work they size), keys that are
// not finite or go backwards, and a glTF without the nodes `export` writes.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "inputanim/import.hpp"
#include "support/gltf_builder.hpp"
#include "support/run_process.hpp"

using namespace inputanim;
using namespace inputanim::testing;

namespace {

// A head moving over two keys: the document each test breaks in one place.
gltf_builder head_motion() {
    // Accessor 0 the times, 1 the values (a function's arguments have no order).
    gltf_builder b;
    const int head = b.node("head");
    const int times = b.floats({0.0f, 1.0f}, "SCALAR");
    const int values = b.floats({1, 2, 3, 4, 5, 6}, "VEC3");
    b.channel(head, "translation", times, values);
    return b;
}

import_result import_text(const std::string& text, const import_options& o = {},
                          import_files* files = nullptr) {
    model m;
    return import_model(bytes_of(text), import_format::gltf, m, o, files);
}

import_result import_glb(const std::vector<std::byte>& bytes, const import_options& o = {}) {
    model m;
    return import_model(bytes, import_format::glb, m, o);
}

std::string with_buffer_uri(gltf_builder b, const std::string& uri) {
    b.doc["buffers"] = {{{"byteLength", b.bin.size()}, {"uri", uri}}};
    return b.gltf();
}

}  // namespace

TEST(ImportGltfErrors, BytesThatAreNotGltfAreBadGltf) {
    EXPECT_EQ(import_text("not json").error, import_error::bad_gltf);
    EXPECT_EQ(import_text("[1, 2]").error, import_error::bad_gltf);
    EXPECT_EQ(import_text(R"({"asset": {"version": "1.0"}})").error, import_error::bad_gltf);
    // A .glb's header, version and chunks.
    std::vector<std::byte> glb = head_motion().glb();
    glb[0] = std::byte{'X'};
    EXPECT_EQ(import_glb(glb).error, import_error::bad_gltf);
    glb = head_motion().glb();
    glb[4] = std::byte{1};
    EXPECT_EQ(import_glb(glb).error, import_error::bad_gltf);
    glb = head_motion().glb();
    glb[12] = std::byte{0xff};  // the JSON chunk's length past the file
    glb[13] = std::byte{0xff};
    EXPECT_EQ(import_glb(glb).error, import_error::bad_gltf);
    EXPECT_EQ(import_glb(std::vector<std::byte>(8)).error, import_error::bad_gltf);
}

TEST(ImportGltfErrors, JsonNestedTooDeepIsRefusedBeforeItIsParsed) {
    gltf_builder b = head_motion();
    nlohmann::json deep = nlohmann::json::array();
    for (int i = 0; i < 100; ++i) deep = nlohmann::json::array({deep});
    b.doc["extras"] = deep;
    const import_result r = import_text(b.gltf());
    EXPECT_EQ(r.error, import_error::bad_gltf);
    EXPECT_NE(r.detail.find("nested deeper than 64"), std::string::npos) << r.detail;
}

TEST(ImportGltfErrors, JsonOfMoreValuesThanTheCeilingIsRefusedBeforeItIsBuilt) {
    // 2^22 values (an export has about 2,000) and one more.
    std::string text = head_motion().gltf();
    std::string zeros = "\"extras\":[";
    for (std::size_t i = 0; i < (std::size_t{1} << 22); ++i) zeros += "0,";
    zeros.back() = ']';
    text.insert(1, zeros + ",");
    const import_result r = import_text(text);
    EXPECT_EQ(r.error, import_error::bad_gltf);
    EXPECT_NE(r.detail.find("JSON of more than 4194304 values"), std::string::npos) << r.detail;
}

TEST(ImportGltfErrors, MoreNodesThanTheCeilingAreRefusedBeforeTinygltfReadsThem) {
    gltf_builder b = head_motion();
    for (int i = 0; i < 65536; ++i) b.doc["nodes"].push_back(nlohmann::json::object());
    const import_result r = import_text(b.gltf());
    EXPECT_EQ(r.error, import_error::bad_gltf);
    EXPECT_EQ(r.detail, "65537 nodes, more than the 65536 an import reads");
}

TEST(ImportGltfErrors, AGltfWithoutTheExportsNodesIsMissingNodesAndNamesThem) {
    gltf_builder b;
    const int n = b.node("Cube");
    b.channel(n, "translation", b.floats({0.0f}, "SCALAR"), b.floats({1, 2, 3}, "VEC3"));
    const import_result r = import_text(b.gltf());
    EXPECT_EQ(r.error, import_error::missing_nodes);
    for (const char* name : {"head", "gaze", "hand.left", "hand.right", "Wrist", "PinkyTip"}) {
        EXPECT_NE(r.detail.find(name), std::string::npos) << name << " in " << r.detail;
    }
}

TEST(ImportGltfErrors, AnAccessorOutOfRangeIsBadAccessor) {
    gltf_builder b = head_motion();
    b.doc["animations"][0]["samplers"][0]["output"] = 99;
    EXPECT_EQ(import_text(b.gltf()).error, import_error::bad_accessor);
    b = head_motion();
    b.doc["animations"][0]["samplers"][0]["input"] = 99;
    EXPECT_EQ(import_text(b.gltf()).error, import_error::bad_accessor);
    b = head_motion();
    b.doc["accessors"][1]["bufferView"] = 7;
    EXPECT_EQ(import_text(b.gltf()).error, import_error::bad_accessor);
}

TEST(ImportGltfErrors, AnAccessorOfAnotherTypeIsBadAccessor) {
    gltf_builder b = head_motion();
    b.doc["accessors"][1]["type"] = "VEC4";
    EXPECT_EQ(import_text(b.gltf()).error, import_error::bad_accessor);
    b = head_motion();
    b.doc["accessors"][0]["componentType"] = 5123;  // unsigned short times
    EXPECT_EQ(import_text(b.gltf()).error, import_error::bad_accessor);
}

TEST(ImportGltfErrors, AnAccessorPastItsBufferViewOrItsBufferIsBadAccessor) {
    gltf_builder b = head_motion();
    b.doc["accessors"][1]["byteOffset"] = 4;
    EXPECT_EQ(import_text(b.gltf()).error, import_error::bad_accessor);
    b = head_motion();
    b.doc["bufferViews"][1]["byteLength"] = 4096;
    EXPECT_EQ(import_text(b.gltf()).error, import_error::bad_accessor);
    b = head_motion();
    b.doc["bufferViews"][1]["byteOffset"] = std::numeric_limits<std::uint32_t>::max();
    EXPECT_EQ(import_text(b.gltf()).error, import_error::bad_accessor);
}

TEST(ImportGltfErrors, ABufferPastTheGlbsBinaryChunkOrItsDataIsBadAccessor) {
    gltf_builder b = head_motion();
    b.doc["buffers"] = {{{"byteLength", b.bin.size() + 64}}};
    EXPECT_EQ(import_glb(b.glb()).error, import_error::bad_accessor);
    b = head_motion();
    b.doc["buffers"] = {
        {{"byteLength", b.bin.size() + 64}, {"uri", gltf_builder::data_uri(b.bin)}}};
    EXPECT_EQ(import_text(b.gltf()).error, import_error::bad_accessor);
}

TEST(ImportGltfErrors, ADataUriThatIsNotBase64IsBadDataUri) {
    const gltf_builder b = head_motion();
    for (const std::string& uri : {std::string("data:application/octet-stream,plain"),
                                   std::string("data:application/octet-stream;base64,AAAA*AAA"),
                                   std::string("data:application/octet-stream;base64,AA=A"),
                                   std::string("data:application/octet-stream;base64,AAAAA")}) {
        EXPECT_EQ(import_text(with_buffer_uri(b, uri)).error, import_error::bad_data_uri) << uri;
    }
}

TEST(ImportGltfErrors, ASparseAccessorIsRefused) {
    gltf_builder b = head_motion();
    b.doc["accessors"][1]["sparse"] = {{"count", 1},
                                       {"indices", {{"bufferView", 0}, {"componentType", 5125}}},
                                       {"values", {{"bufferView", 1}}}};
    EXPECT_EQ(import_text(b.gltf()).error, import_error::sparse_accessor);
}

TEST(ImportGltfErrors, ATimeThatIsNotFiniteIsNotFinite) {
    gltf_builder b;
    const int head = b.node("head");
    b.channel(head, "translation",
              b.floats({0.0f, std::numeric_limits<float>::quiet_NaN()}, "SCALAR"),
              b.floats({1, 2, 3, 4, 5, 6}, "VEC3"));
    const import_result r = import_text(b.gltf());
    EXPECT_EQ(r.error, import_error::not_finite);
    EXPECT_NE(r.detail.find("camera.position.x key 1"), std::string::npos) << r.detail;
}

TEST(ImportGltfErrors, TimesThatGoBackwardsAreUnsortedKeys) {
    gltf_builder b;
    const int head = b.node("head");
    b.channel(head, "translation", b.floats({1.0f, 0.5f}, "SCALAR"),
              b.floats({1, 2, 3, 4, 5, 6}, "VEC3"));
    EXPECT_EQ(import_text(b.gltf()).error, import_error::unsorted_keys);
    // A hand's scale too, though its bool curve keeps only the changes.
    gltf_builder h;
    const int hand = h.node("hand.left");
    h.channel(hand, "scale", h.floats({0.0f, 1.0f, 0.5f}, "SCALAR"),
              h.floats({1, 1, 1, 1, 1, 1, 1, 1, 1}, "VEC3"));
    EXPECT_EQ(import_text(h.gltf()).error, import_error::unsorted_keys);
}

TEST(ImportGltfErrors, ASamplerOfABillionKeysIsRefusedByTheKeyBudgetBeforeItIsRead) {
    // The accessors claim 10^9 keys over a buffer of 2: the budget refuses the count before the
    // accessor's range is checked or anything is allocated for it.
    gltf_builder b = head_motion();
    b.doc["accessors"][0]["count"] = 1000000000;
    b.doc["accessors"][1]["count"] = 1000000000;
    import_options o;
    o.limits = upload_limits();
    const import_result r = import_text(b.gltf(), o);
    EXPECT_EQ(r.error, import_error::limit_exceeded);
    EXPECT_NE(r.detail.find("1000000000 keys, more than --max-keyframes-per-curve"),
              std::string::npos)
        << r.detail;
    // And the total over the curves.
    o.limits = {};
    o.limits.max_total_keyframes = 5;
    EXPECT_EQ(import_text(head_motion().gltf(), o).error, import_error::limit_exceeded);
}

TEST(ImportGltfErrors, WithoutACeilingABillionKeysAreCheckedAgainstTheirBufferBeforeAllocating) {
    // The default limits take 10^9 keys a curve: the accessors, past their 24 bytes, are refused
    // before 4 GB are allocated for their times.
    gltf_builder b = head_motion();
    b.doc["accessors"][0]["count"] = 1000000000;
    b.doc["accessors"][1]["count"] = 1000000000;
    EXPECT_EQ(import_text(b.gltf()).error, import_error::bad_accessor);
}

TEST(ImportGltfErrors, ASamplerThatCannotBeReadIsBadSampler) {
    gltf_builder b = head_motion();
    b.doc["animations"][0]["samplers"][0]["interpolation"] = "SMOOTH";
    EXPECT_EQ(import_text(b.gltf()).error, import_error::bad_sampler);
    b = head_motion();
    b.doc["animations"][0]["samplers"][0]["interpolation"] = "CUBICSPLINE";  // 2 values, not 6
    EXPECT_EQ(import_text(b.gltf()).error, import_error::bad_sampler);
    b = head_motion();
    b.doc["animations"][0]["channels"][0]["sampler"] = 5;
    EXPECT_EQ(import_text(b.gltf()).error, import_error::bad_sampler);
}

TEST(ImportGltfErrors, AnExternalUriOutsideTheFolderIsBadUri) {
    scratch_folder dir;
    std::filesystem::create_directories(dir.path() / "in");
    folder_files files(dir.path() / "in");
    const gltf_builder b = head_motion();
    // The file the URIs would reach exists: the URI is refused, not the read.
    std::ofstream(dir.path() / "take.bin", std::ios::binary)
        .write(reinterpret_cast<const char*>(b.bin.data()),
               static_cast<std::streamsize>(b.bin.size()));
    for (const std::string& uri : std::vector<std::string>{
             "../take.bin", "in/../../take.bin", "%2e%2e/take.bin",
             (dir.path() / "take.bin").string(), "file://" + (dir.path() / "take.bin").string(),
             "http://example.com/take.bin", "C:take.bin", "..\\take.bin",
             std::string("take.bin%00")}) {
        const import_result r = import_text(with_buffer_uri(b, uri), {}, &files);
        EXPECT_EQ(r.error, import_error::bad_uri) << uri << ": " << r.detail;
    }
    // folder_files refuses such a path itself.
    std::vector<std::byte> out;
    EXPECT_EQ(files.read("../take.bin", 1 << 20, out), import_error::bad_uri);
}

TEST(ImportGltfErrors, ALinkInTheFolderThatLeadsOutOfItIsBadUri) {
    scratch_folder dir;
    std::filesystem::create_directories(dir.path() / "in");
    const gltf_builder b = head_motion();
    std::ofstream(dir.path() / "take.bin", std::ios::binary)
        .write(reinterpret_cast<const char*>(b.bin.data()),
               static_cast<std::streamsize>(b.bin.size()));
    std::filesystem::create_symlink(dir.path() / "take.bin", dir.path() / "in" / "link.bin");
    std::filesystem::create_directory_symlink(dir.path(), dir.path() / "in" / "up");
    folder_files files(dir.path() / "in");
    for (const std::string uri : {"link.bin", "up/take.bin"}) {
        const import_result r = import_text(with_buffer_uri(b, uri), {}, &files);
        EXPECT_EQ(r.error, import_error::bad_uri) << uri << ": " << r.detail;
    }
    EXPECT_TRUE(files.files_read().empty());
    // A link that stays within the folder is read, and named by where it leads.
    std::filesystem::rename(dir.path() / "take.bin", dir.path() / "in" / "take.bin");
    std::filesystem::create_symlink("take.bin", dir.path() / "in" / "inside.bin");
    const import_result r = import_text(with_buffer_uri(b, "inside.bin"), {}, &files);
    EXPECT_FALSE(r.error) << r.detail;
    ASSERT_EQ(files.files_read().size(), 1u);
    EXPECT_EQ(std::filesystem::path(files.files_read()[0]).filename(), "take.bin");
}

TEST(ImportGltfErrors, AnExternalBufferWithoutFilesIsBadUri) {
    EXPECT_EQ(import_text(with_buffer_uri(head_motion(), "take.bin")).error, import_error::bad_uri);
}

TEST(ImportGltfErrors, ABufferLargerThanMaxBytesIsTooLarge) {
    import_options o;
    o.limits.max_bytes = 4096;
    // Declared larger: refused before anything is loaded.
    gltf_builder b = head_motion();
    b.doc["buffers"] = {{{"byteLength", 5000}, {"uri", "take.bin"}}};
    EXPECT_EQ(import_text(b.gltf(), o).error, import_error::too_large);
    // Declared small, but the file is larger: folder_files refuses it before reading it.
    scratch_folder dir;
    std::ofstream(dir.path() / "big.bin", std::ios::binary) << std::string(8192, '\0');
    folder_files files(dir.path());
    b = head_motion();
    b.doc["buffers"] = {{{"byteLength", 24}, {"uri", "big.bin"}}};
    EXPECT_EQ(import_text(b.gltf(), o, &files).error, import_error::too_large);
    // The input itself.
    o.limits.max_bytes = 16;
    EXPECT_EQ(import_text(head_motion().gltf(), o).error, import_error::too_large);
}

TEST(ImportGltfErrors, AMissingExternalBufferIsTheSystemsError) {
    scratch_folder dir;
    folder_files files(dir.path());
    const import_result r = import_text(with_buffer_uri(head_motion(), "gone.bin"), {}, &files);
    EXPECT_EQ(r.error, std::errc::no_such_file_or_directory);
    EXPECT_NE(r.detail.find("gone.bin"), std::string::npos) << r.detail;
}
