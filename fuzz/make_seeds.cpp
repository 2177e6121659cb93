// Writes the seed corpora of the harnesses with the library's writer: every layout, empty and
// long curves, markers, the warnings, and a few files with one content or structural error so
// that every path of validation has a seed. The files are committed under fuzz/corpus/; the
// ctest `fuzz_seeds_up_to_date` runs this with --check so they never drift from the writer.
//
//     make_seeds <corpus folder>           (re)writes <folder>/<harness>/<seed>
//     make_seeds --check <corpus folder>   fails when a seed file is missing or differs
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "archive_seeds.hpp"
#include "inputanim/inputanim.hpp"
#include "layouts_2019.hpp"

namespace {

using namespace inputanim;
using fuzz::june_2019;
using fuzz::may_2019;
namespace fs = std::filesystem;
using bytes = std::vector<std::byte>;

struct seed {
    std::string name;
    bytes content;
};

model empty(int minor, layout l = layout::compact, block_flags blocks = {}) {
    model m;
    m.minor = minor;
    m.layout = minor == 0 ? layout::full : l;
    m.blocks = minor == 0 ? block_flags{true, true, false} : blocks;
    return m;
}

// `n` keys at 60 Hz; full keyframes get tangents, weights and every weighted mode. Every value
// is one correctly rounded operation (no a * b + c, which compilers may fuse into an FMA on
// targets that have one, such as s390x), so the seeds are the same bytes on every machine.
std::vector<keyframe> keys(std::size_t n, float base, bool full) {
    std::vector<keyframe> out;
    for (std::size_t i = 0; i < n; ++i) {
        keyframe k{static_cast<float>(i) / 60.0f, base + static_cast<float>(i % 50) / 1024.0f};
        if (full) {
            k.in_tangent = 0.5f * static_cast<float>(i % 3);
            k.out_tangent = -0.25f;
            k.in_weight = 1.0f / 3.0f;
            k.out_weight = 0.5f;
            k.weighted_mode = static_cast<std::int32_t>(i % 4);
        }
        out.push_back(k);
    }
    return out;
}

bool has_tangents(const model& m) {
    return m.minor == 0 || m.layout == layout::full;
}

// A unit camera rotation, some joint and gaze keys, hand states and two markers.
model small(int minor, layout l) {
    model m = empty(minor, l);
    const bool full = has_tangents(m);
    for (std::size_t c = 0; c < pose_channel_count; ++c) {
        const auto ch = static_cast<pose_channel>(c);
        m[camera_curve(ch)].keys = keys(5, c == 6 ? 1.0f : 0.0f, false);
        m[joint_curve(side::left, joint::wrist, ch)].keys = keys(4, 0.1f, full);
        m[joint_curve(side::right, joint::index_tip, ch)].keys = keys(3, -0.2f, full);
    }
    m[hand_state_curve(hand_state::left_tracked)].keys = {
        {0.0f, 1.0f}, {0.5f, 0.0f}, {0.75f, 1.0f}};
    m[hand_state_curve(hand_state::right_pinching)].keys = {{0.1f, 0.0f}};
    if (minor == 1) {
        for (std::size_t c = 0; c < ray_channel_count; ++c) {
            m[gaze_curve(static_cast<ray_channel>(c))].keys = keys(6, 2.0f, full);
        }
    }
    m.markers = std::vector<marker>{{0.25f, "start"}, {0.5f, "gr\xc3\xbc\xc3\x9f"}};
    return m;
}

// Long curves: the camera and one hand over `n` frames, the hand-state curves toggling.
model long_curves(int minor, layout l, std::size_t n) {
    model m = empty(minor, l);
    const bool full = has_tangents(m);
    for (std::size_t c = 0; c < pose_channel_count; ++c) {
        const auto ch = static_cast<pose_channel>(c);
        m[camera_curve(ch)].keys = keys(n, c == 6 ? 1.0f : 0.0f, false);
        m[joint_curve(side::right, joint::palm, ch)].keys = keys(n / 4, 0.3f, full);
    }
    auto& tracked = m[hand_state_curve(hand_state::right_tracked)].keys;
    for (std::size_t i = 0; i < n / 10; ++i) {
        tracked.push_back({static_cast<float>(i) / 6.0f, i % 2 == 0 ? 1.0f : 0.0f});
    }
    return m;
}

model one_block(block_flags blocks) {
    model m = empty(1, layout::compact, blocks);
    if (blocks.camera) m[camera_curve(pose_channel::position_y)].keys = keys(10, 1.6f, false);
    if (blocks.hands) {
        m[hand_state_curve(hand_state::left_pinching)].keys = {{0.0f, 0.0f}, {0.2f, 1.0f}};
        m[joint_curve(side::left, joint::thumb_tip, pose_channel::position_x)].keys =
            keys(8, 0.05f, false);
    }
    if (blocks.gaze) m[gaze_curve(ray_channel::direction_z)].keys = keys(12, 1.0f, false);
    return m;
}

// Names of every UTF-8 length, a long one (2-byte length prefix) and a very long one (3 bytes).
model many_markers() {
    model m = empty(1, layout::compact, block_flags{false, false, false});
    const char* names[] = {"",
                           "a",
                           "grab",
                           "gr\xc3\xbc\xc3\x9f",
                           "\xe2\x9c\x8b stop",
                           "\xf0\x9f\x91\x8b wave",
                           "\xe6\x8f\xa1\xe3\x82\x8b"};
    for (std::size_t i = 0; i < 20; ++i) {
        m.markers->push_back(marker{0.1f * static_cast<float>(i), names[i % std::size(names)]});
    }
    m.markers->push_back(marker{2.5f, std::string(200, 'm')});
    m.markers->push_back(marker{3.0f, std::string(17000, 'n')});
    return m;
}

// The three warnings: a non-unit camera quaternion, a dropped rotation.w, a negative time.
model with_warnings() {
    model m = empty(1, layout::compact);
    const float q[4] = {0.6f, 0.0f, 0.0f, 0.9f};
    for (std::size_t c = 0; c < 4; ++c) {
        auto& k = m[camera_curve(static_cast<pose_channel>(3 + c))].keys;
        for (std::size_t i = 0; i < 4; ++i) k.push_back({static_cast<float>(i) / 60.0f, q[c]});
    }
    for (std::size_t c = 3; c < 6; ++c) {
        m[joint_curve(side::left, joint::palm, static_cast<pose_channel>(c))].keys =
            keys(5, 0.0f, false);
    }
    m[joint_curve(side::left, joint::palm, pose_channel::rotation_w)].keys = {{0.0f, 1.0f}};
    m[gaze_curve(ray_channel::origin_x)].keys = {{-0.5f, 0.0f}, {0.5f, 0.1f}};
    return m;
}

// Full keyframes with infinite tangents (stepped segments, legal) and weighted segments.
model stepped_and_weighted() {
    model m = empty(1, layout::full);
    constexpr float inf = std::numeric_limits<float>::infinity();
    auto& k = m[camera_curve(pose_channel::position_x)].keys;
    k = {{0.0f, 0.0f, 0.0f, inf, 0.0f, 0.0f, 0},
         {0.5f, 1.0f, -inf, 2.0f, 0.2f, 0.7f, 2},
         {1.0f, 0.5f, 1.0f, 0.0f, 0.9f, 0.1f, 1},
         {1.5f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 3}};
    return m;
}

std::vector<seed> file_seeds() {
    constexpr float nan = std::numeric_limits<float>::quiet_NaN();
    std::vector<seed> s;
    const auto add = [&](std::string name, const model& m) {
        s.push_back({std::move(name), write(m)});
    };

    add("v10_empty.bin", empty(0));
    add("v10_small.bin", small(0, layout::full));
    model v10_plain = small(0, layout::full);
    v10_plain.markers.reset();
    add("v10_no_marker_list.bin", v10_plain);
    add("v10_long.bin", long_curves(0, layout::full, 120));
    add("v11_compact_empty.bin", empty(1, layout::compact));
    add("v11_full_empty.bin", empty(1, layout::full));
    add("v11_compact_small.bin", small(1, layout::compact));
    add("v11_full_small.bin", small(1, layout::full));
    add("v11_compact_long.bin", long_curves(1, layout::compact, 300));
    add("v11_full_long.bin", long_curves(1, layout::full, 120));
    add("v11_no_blocks.bin", many_markers());
    add("v11_camera_only.bin", one_block({true, false, false}));
    add("v11_hands_only.bin", one_block({false, true, false}));
    add("v11_gaze_only.bin", one_block({false, false, true}));
    add("v11_camera_and_gaze.bin", one_block({true, false, true}));
    model no_list = small(1, layout::compact);
    no_list.markers.reset();
    add("v11_no_marker_list.bin", no_list);
    add("v11_warnings.bin", with_warnings());
    add("v11_full_stepped_weighted.bin", stepped_and_weighted());
    s.push_back({"june_2019_small.bin", june_2019(write(small(0, layout::full)))});
    s.push_back({"may_2019_small.bin", may_2019(write(small(0, layout::full)))});

    // One content error each (level full).
    model nan_tangent = small(1, layout::full);
    nan_tangent[joint_curve(side::left, joint::wrist, pose_channel::position_z)]
        .keys[2]
        .in_tangent = nan;
    add("v11_full_nan_tangent.bin", nan_tangent);
    model unsorted = small(1, layout::compact);
    unsorted[gaze_curve(ray_channel::origin_y)].keys[3].time = 0.0f;
    add("v11_unsorted_keys.bin", unsorted);
    model bad_bool = small(1, layout::compact);
    bad_bool[hand_state_curve(hand_state::left_tracked)].keys[1].value = 0.5f;
    add("v11_bad_bool_value.bin", bad_bool);
    model bad_mode = small(0, layout::full);
    bad_mode[joint_curve(side::right, joint::index_tip, pose_channel::rotation_w)]
        .keys[1]
        .weighted_mode = 4;
    add("v10_bad_weighted_mode.bin", bad_mode);
    model bad_utf8 = small(1, layout::compact);
    (*bad_utf8.markers)[1].name = "gr\xc3";
    add("v11_bad_utf8_marker.bin", bad_utf8);
    model nan_marker = small(1, layout::compact);
    (*nan_marker.markers)[0].time = nan;
    add("v11_nan_marker_time.bin", nan_marker);

    // One structural error each.
    model bad_wrap = small(1, layout::compact);
    bad_wrap[joint_curve(side::right, joint::wrist, pose_channel::position_x)].post_wrap = 3;
    add("v11_bad_wrap_mode.bin", bad_wrap);
    bytes cut = write(small(1, layout::full));
    cut.resize(cut.size() / 2);
    s.push_back({"v11_truncated.bin", cut});
    bytes trailing = write(small(1, layout::compact));
    trailing.push_back(std::byte{0x2a});
    s.push_back({"v11_trailing_bytes.bin", trailing});
    bytes header_only = write(empty(1));
    header_only.resize(17);
    s.push_back({"v11_short_flags.bin", header_only});
    return s;
}

// The file seeds, and what the exporters refuse or escape (docs/EXPORT.md): marker names that
// YAML 1.1 reads otherwise raw, a position that is not finite, key times that overflow once
// shifted to 0, and a recording whose .glb at 60 Hz passes 4 GiB.
std::vector<seed> export_seeds() {
    std::vector<seed> s = file_seeds();
    const auto add = [&](std::string name, const model& m) {
        s.push_back({std::move(name), write(m)});
    };
    model names = small(1, layout::compact);
    names.markers =
        std::vector<marker>{{0.1f,
                             "a\xc2\x85"
                             "b"},
                            {0.2f, "\xc2\x80\xc2\x9f\xe2\x80\xa8\xe2\x80\xa9\xef\xbb\xbf"},
                            {0.3f, "\xef\xb7\x90\xef\xbf\xbe\xef\xbf\xbf\xf0\x9f\xbf\xbe"},
                            {0.4f, "tab\tquote\"back\\"}};
    add("export_yaml_names.bin", names);
    model not_finite = small(1, layout::full);
    not_finite[joint_curve(side::left, joint::wrist, pose_channel::position_y)].keys[1].value =
        std::numeric_limits<float>::infinity();
    add("export_infinite_position.bin", not_finite);
    model far = empty(1, layout::compact, block_flags{true, false, false});
    far[camera_curve(pose_channel::position_x)].keys = {{-3e38f, 0.0f}, {3e38f, 1.0f}};
    add("export_times_overflow.bin", far);
    model long_hands = empty(1, layout::compact, block_flags{false, true, false});
    long_hands[hand_state_curve(hand_state::left_tracked)].keys = {{0.0f, 1.0f}, {5e4f, 1.0f}};
    add("export_glb_over_4_gib.bin", long_hands);
    return s;
}

// Seeds for the structure-aware round trip: its input is the choice stream of
// FuzzedDataProvider, so any bytes are a model; a fixed generator gives a few of every length.
std::vector<seed> choice_seeds() {
    std::vector<seed> s;
    std::uint64_t state = 0x9e3779b97f4a7c15ULL;
    for (std::size_t size : {8u, 64u, 512u, 2048u, 8192u}) {
        bytes b;
        for (std::size_t i = 0; i < size; ++i) {
            // splitmix64: fixed, portable, good enough to spread the choices.
            state += 0x9e3779b97f4a7c15ULL;
            std::uint64_t z = state;
            z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
            z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
            b.push_back(static_cast<std::byte>((z ^ (z >> 31)) & 0xff));
        }
        s.push_back({"choices_" + std::to_string(size) + ".bin", b});
    }
    return s;
}

// Seeds of the archive harness (fuzz_archive.cpp): every container and every damage and budget of
// docs/ARCHIVES.md, around recordings of the writer.
std::vector<seed> archive_seeds() {
    namespace a = fuzz::archives;
    std::vector<seed> s;
    const bytes compact = write(small(1, layout::compact));
    const bytes v10 = write(small(0, layout::full));
    bytes cut = compact;
    cut.resize(cut.size() / 2);
    const std::string long_name = "session/" + std::string(120, 'n') + ".bin";
    const std::vector<a::tar_entry> plain = {{"a.bin", compact}, {"b/v10.bin", v10}};
    s.push_back({"tar_ustar.tar", a::tar(plain)});
    s.push_back({"tar_pax_long_name.tar", a::tar({{long_name, compact, '0', "", 'x'}})});
    s.push_back({"tar_gnu_long_name.tar", a::tar({{long_name, v10, '0', "", 'L'}})});
    s.push_back({"tar_gzip.tar.gz", a::gzip_stored(a::tar(plain))});
    s.push_back({"tar_kinds.tar", a::tar({{"dir", {}, '5'},
                                          {"dir/a.bin", compact},
                                          {"link.bin", {}, '2', "dir/a.bin"},
                                          {"hard.bin", {}, '1', "dir/a.bin"},
                                          {"fifo", {}, '6'}})});
    s.push_back({"tar_member_gzip.tar", a::tar({{"a.bin.gz", a::gzip_stored(compact)},
                                                {"cut.bin", cut},
                                                {"notes.txt", bytes(40, std::byte{'n'})}})});
    s.push_back({"tar_duplicate_names.tar", a::tar({{"a.bin", compact}, {"a.bin", cut}})});
    s.push_back(
        {"tar_names_escapes.tar",
         a::tar({{"new\nline.bin", compact}, {"esc\x1b[2K.bin", v10}, {"\xff\xfe.bin", v10}})});
    bytes whole = a::tar(plain);
    bytes truncated_header = whole;
    truncated_header.resize(512 + (compact.size() + 511) / 512 * 512 + 200);
    s.push_back({"tar_truncated_in_header.tar", truncated_header});
    bytes truncated_data = whole;
    truncated_data.resize(512 + compact.size() / 2);
    s.push_back({"tar_truncated_in_member.tar", truncated_data});
    bytes checksum = whole;
    checksum[0] = std::byte{'A'};
    s.push_back({"tar_bad_checksum.tar", checksum});
    bytes past_end = a::tar_header("big.bin", std::uint64_t{1} << 30, '0');
    a::append(past_end, compact);
    s.push_back({"tar_size_past_end.tar", past_end});
    std::vector<a::tar_entry> empties;
    for (int i = 0; i < 220; ++i) empties.push_back({"e" + std::to_string(i), {}});
    s.push_back({"tar_many_empty_members.tar", a::tar(empties)});
    // A pax header that says it is 2 GiB long, its bytes cut short.
    bytes pax = a::tar_header("PaxHeader", std::uint64_t{2} << 30, 'x');
    a::append(pax, a::pax_record("comment", std::string(4000, 'c')));
    s.push_back({"tar_pax_header_of_gigabytes.tar", pax});

    s.push_back({"zip_stored.zip", a::zip({{"a.bin", compact}, {"b/v10.bin", v10}})});
    s.push_back(
        {"zip_deflate.zip", a::zip({{"a.bin", compact, true}, {"b.bin.gz", a::gzip_stored(v10)}})});
    s.push_back({"zip_descriptors.zip",
                 a::zip({{"a.bin", compact}, {"b.bin", v10, true}}, {true, false, false})});
    s.push_back(
        {"zip64.zip", a::zip({{"a.bin", compact}, {"b.bin", v10, true}}, {false, true, false})});
    s.push_back({"zip_empty.zip", a::zip({})});
    s.push_back({"zip_local_disagrees.zip",
                 a::zip({{"a.bin", compact, false, {}, "other.bin"}, {"b.bin", v10}})});
    s.push_back(
        {"zip_overlapping.zip", a::zip({{"a.bin", compact}, {"b.bin", compact}, {"c.bin", compact}},
                                       {false, false, true})});
    // About 160 times its size once inflated, past 1 MiB: past the upload budget's ratio of 100.
    s.push_back({"zip_ratio_bomb.zip", a::zip({{"zeros.bin", bytes(1 + 258 * 4200, std::byte{0}),
                                                true, a::deflate_zeros(4200)}})});
    s.push_back({"zip_duplicate_names.zip", a::zip({{"a.bin", compact}, {"a.bin", cut}})});
    bytes zip_cut = a::zip({{"a.bin", compact}});
    zip_cut.resize(zip_cut.size() - 10);
    s.push_back({"zip_truncated.zip", zip_cut});
    return s;
}

struct corpus {
    const char* harness;
    std::vector<seed> (*seeds)();
};

constexpr corpus corpora[] = {
    {"parse", file_seeds},       {"validate", file_seeds},   {"mutate", file_seeds},
    {"roundtrip", choice_seeds}, {"evaluate", choice_seeds}, {"stream", file_seeds},
    {"convert", choice_seeds},   {"export", export_seeds},   {"archive", archive_seeds}};

bool read_file(const fs::path& path, bytes& out) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return false;
    const std::vector<char> raw((std::istreambuf_iterator<char>(in)),
                                std::istreambuf_iterator<char>());
    out.resize(raw.size());
    for (std::size_t i = 0; i < raw.size(); ++i) out[i] = static_cast<std::byte>(raw[i]);
    return true;
}

}  // namespace

int main(int argc, char** argv) {
    const bool check = argc == 3 && std::string_view(argv[1]) == "--check";
    if (argc != 2 && !check) {
        std::fprintf(stderr, "usage: make_seeds [--check] <corpus folder>\n");
        return 2;
    }
    const fs::path root = argv[argc - 1];
    int problems = 0;
    std::size_t total = 0;
    for (const corpus& c : corpora) {
        const fs::path folder = root / c.harness;
        for (const seed& s : c.seeds()) {
            const fs::path path = folder / s.name;
            total += s.content.size();
            if (check) {
                bytes on_disk;
                if (!read_file(path, on_disk) || on_disk != s.content) {
                    std::fprintf(stderr, "%s: missing or not what the writer makes now\n",
                                 path.c_str());
                    ++problems;
                }
                continue;
            }
            fs::create_directories(folder);
            std::ofstream out(path, std::ios::binary | std::ios::trunc);
            out.write(reinterpret_cast<const char*>(s.content.data()),
                      static_cast<std::streamsize>(s.content.size()));
            if (!out) {
                std::fprintf(stderr, "%s: cannot write\n", path.c_str());
                ++problems;
            }
        }
    }
    if (problems > 0) {
        if (check) std::fprintf(stderr, "run: make_seeds %s\n", root.c_str());
        return 1;
    }
    std::printf("%s %zu bytes of seeds under %s\n", check ? "checked" : "wrote", total,
                root.c_str());
    return 0;
}
