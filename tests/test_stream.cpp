// The streaming validator gives validate()'s report whatever the chunking: the same validity,
// error (code, offset, place, curve, index, limit), summary and warnings (but
// non_unit_quaternion, which it does not compute), on valid files, their prefixes and single-byte
// mutations, content errors, limits, the real June 2019 recordings and random bytes.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "support/builders.hpp"
#include "support/seed.hpp"
#include "support/validation_cases.hpp"

using namespace inputanim;
using namespace inputanim::testing;

namespace {

struct sample {
    std::string name;
    bytes data;
};

// The small files of every shape, with and without markers, with every curve empty, and v1.1
// files without the hands block (a few curves, nearly every byte a keyframe byte).
std::vector<sample> small_files() {
    std::vector<sample> out;
    for (shape s : all_shapes) {
        out.push_back({shape_name(s), small_file(s)});
        out.push_back({std::string(shape_name(s)) + " without markers", small_file(s, false)});
        out.push_back({std::string(shape_name(s)) + " empty", write(empty_model(s))});
    }
    for (shape s : {shape::v11_compact, shape::v11_full}) {
        model m = small_model(s);
        m.blocks = block_flags{true, false, true};
        out.push_back({std::string(shape_name(s)) + " camera and gaze", write(m)});
    }
    return out;
}

block_flags blocks_of(shape s) {
    return s == shape::v10 ? block_flags{true, true, false} : block_flags{};
}

// The v1.1 files without the hands block: every byte of them is worth mutating.
std::vector<sample> few_curve_files() {
    std::vector<sample> out;
    for (shape s : {shape::v11_compact, shape::v11_full}) {
        model m = small_model(s);
        m.blocks = block_flags{true, false, true};
        out.push_back({std::string(shape_name(s)) + " camera and gaze", write(m)});
    }
    return out;
}

// Chunk sizes 1 to 64 (all of them, or a sample: the sizes around the 8-, 12- and 28-byte fields),
// three random chunkings and one chunk, against one validate().
enum class sizes { all, sample };

void expect_same_at_every_chunking(const std::string& name, const bytes& b,
                                   const validate_options& options, sizes which = sizes::all) {
    const report whole = validate(view(b), options);
    for (std::size_t size = 1; size <= 64; ++size) {
        if (which == sizes::sample && size > 3 && size % 8 > 1 && size != 12 && size != 28)
            continue;
        ASSERT_EQ(difference(whole, stream_in_chunks_of(view(b), options, size)), "")
            << name << ", " << describe(options) << ", chunks of " << size;
    }
    // Each file its own chunkings: the test's seed (0 unless replayed) plus the file's size.
    std::mt19937 rng(test_seed(0) + static_cast<std::uint32_t>(b.size()));
    for (std::size_t max_chunk : {7, 100, 5000}) {
        ASSERT_EQ(difference(whole, stream_at_random(view(b), options, rng, max_chunk)), "")
            << name << ", " << describe(options) << ", random chunks up to " << max_chunk;
    }
    ASSERT_EQ(difference(whole, stream_in_chunks_of(view(b), options, b.size() + 1)), "")
        << name << ", " << describe(options) << ", one chunk";
}

TEST(StreamValidator, MatchesValidateOnEverySmallFileAtEveryChunkSizeLayoutAndLevel) {
    for (const sample& s : small_files()) {
        for (const validate_options& o : every_layout_and_level()) {
            expect_same_at_every_chunking(s.name, s.data, o);
        }
    }
}

// Each prefix twice: fed whole in one chunk, and as the snapshot (a copy) of a stream fed one byte
// at a time, which is where a byte-by-byte upload stands when it is cut. The small files with
// markers under `automatic` (v1.1: both walks), the few-curve files under every layout.
TEST(StreamValidator, MatchesValidateOnEveryPrefixOfEverySmallFile) {
    std::vector<std::pair<sample, layout_choice>> plans;
    for (shape sh : all_shapes) {
        plans.emplace_back(sample{shape_name(sh), small_file(sh)}, layout_choice::automatic);
    }
    for (const sample& s : few_curve_files()) {
        for (layout_choice c :
             {layout_choice::automatic, layout_choice::compact, layout_choice::full}) {
            plans.emplace_back(s, c);
        }
    }
    for (const auto& [s, c] : plans) {
        const validate_options options{level::full, c, {}};
        stream_validator byte_by_byte(options);
        for (std::size_t n = 0; n <= s.data.size(); ++n) {
            const std::span<const std::byte> prefix = view(s.data).first(n);
            const report whole = validate(prefix, options);
            ASSERT_EQ(difference(whole, stream_in_chunks_of(prefix, options, n + 1)), "")
                << s.name << ", " << describe(options) << ", first " << n << " bytes whole";
            stream_validator snapshot = byte_by_byte;
            const bool cut = snapshot.status() == stream_status::error;
            ASSERT_EQ(difference(whole, streamed{snapshot.finish(), cut}), "")
                << s.name << ", " << describe(options) << ", first " << n << " bytes one at a time";
            if (n < s.data.size()) byte_by_byte.feed(view(s.data).subspan(n, 1));
        }
    }
}

// Every byte of the few-curve files (whose keyframes are those of the small files), and in the
// small files of every shape the bytes that differ in kind: the header, the first curve's keys,
// the bool curves' keys, the headers of the keyed curves and of one empty curve in ten (the
// others are copies of the same 12 bytes), and the marker list.
TEST(StreamValidator, MatchesValidateOnSingleByteMutations) {
    std::vector<std::pair<sample, std::vector<std::size_t>>> plans;
    for (const sample& s : few_curve_files()) {
        std::vector<std::size_t> offsets(s.data.size());
        for (std::size_t i = 0; i < offsets.size(); ++i) offsets[i] = i;
        plans.emplace_back(s, offsets);
    }
    for (shape sh : all_shapes) {
        const model m = small_model(sh);
        const bytes b = write(m);
        std::vector<std::size_t> offsets;
        const std::size_t first = first_curve_offset(m);
        const std::size_t curves = curve_count(blocks_of(sh));
        for (std::size_t i = 0; i < first; ++i) offsets.push_back(i);
        for (std::size_t c = 0; c < curves; ++c) {
            const std::size_t begin = curve_offset(m, c);
            const std::size_t end = curve_offset(m, c + 1);
            const bool keyed = end - begin > curve_header_size;
            const bool all_keys =
                c == 0 || kind_of(curve_at(blocks_of(sh), c)) == curve_kind::bool_curve;
            if (keyed || c % 10 == 0) {
                const std::size_t last = all_keys ? end : begin + curve_header_size;
                for (std::size_t i = begin; i < last; ++i) offsets.push_back(i);
            }
        }
        for (std::size_t i = marker_list_offset(m); i < b.size(); ++i) offsets.push_back(i);
        plans.emplace_back(sample{shape_name(sh), b}, offsets);
    }

    const validate_options options{};
    for (auto& [s, offsets] : plans) {
        bytes b = s.data;
        for (std::size_t at : offsets) {
            const std::byte original = b[at];
            const std::byte replacements[] = {std::byte{0x00}, std::byte{0xff}, std::byte{0x80},
                                              original ^ std::byte{0x01}};
            for (std::size_t k = 0; k < std::size(replacements); ++k) {
                if (replacements[k] == original) continue;
                b[at] = replacements[k];
                const std::size_t chunk = 1 + (at * 7 + k * 17) % 64;
                ASSERT_EQ(difference(validate(view(b), options),
                                     stream_in_chunks_of(view(b), options, chunk)),
                          "")
                    << s.name << ": byte " << at << " set to "
                    << std::to_integer<int>(replacements[k]) << ", chunks of " << chunk;
            }
            b[at] = original;
        }
    }
}

// One content error per file, of every kind, where it can sit.
std::vector<sample> content_error_files() {
    std::vector<sample> out;
    const curve_id x = camera_curve(pose_channel::position_x);
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const float inf = std::numeric_limits<float>::infinity();
    for (shape s : all_shapes) {
        const std::string name = shape_name(s);
        auto add = [&](const std::string& what, const std::function<void(model&)>& change) {
            model m = small_model(s);
            change(m);
            out.push_back({name + ": " + what, write(m)});
        };
        add("time NaN", [&](model& m) { m[x].keys[1].time = nan; });
        add("value infinite", [&](model& m) { m[x].keys[2].value = -inf; });
        add("keys unsorted", [&](model& m) { m[x].keys[3].time = m[x].keys[2].time; });
        add("bool value 0.5",
            [&](model& m) { m[hand_state_curve(hand_state::left_tracked)].keys[1].value = 0.5f; });
        add("bool value -0.0 (legal)",
            [&](model& m) { m[hand_state_curve(hand_state::left_tracked)].keys[1].value = -0.0f; });
        add("in tangent NaN", [&](model& m) { m[x].keys[1].in_tangent = nan; });
        add("out tangent NaN", [&](model& m) { m[x].keys[1].out_tangent = nan; });
        add("tangent infinite (legal)", [&](model& m) { m[x].keys[1].out_tangent = inf; });
        add("in weight infinite", [&](model& m) { m[x].keys[1].in_weight = inf; });
        add("out weight NaN", [&](model& m) { m[x].keys[1].out_weight = nan; });
        add("weighted mode 4", [&](model& m) { m[x].keys[1].weighted_mode = 4; });
        add("weighted mode -1", [&](model& m) { m[x].keys[0].weighted_mode = -1; });
        add("marker time NaN", [&](model& m) { (*m.markers)[1].time = nan; });
        add("two content errors", [&](model& m) {
            m[x].keys[3].value = nan;
            (*m.markers)[0].time = inf;
        });
        // Long names put the bad bytes across chunk boundaries.
        const std::string pad(61, 'a');
        const std::pair<std::string, std::string> names[] = {
            {"overlong", "\xc0\xaf"},
            {"surrogate", "\xed\xa0\x80"},
            {"above U+10FFFF", "\xf4\x90\x80\x80"},
            {"lone continuation", "\x80"},
            {"sequence cut by the name's end", "ok\xe2\x82"},
            {"four-byte character (legal)", "\xf0\x9f\x98\x80"}};
        for (const auto& name_case : names) {
            const std::string& bad = name_case.second;
            add("marker name " + name_case.first, [&](model& m) { (*m.markers)[1].name = bad; });
            add("long marker name " + name_case.first,
                [&](model& m) { (*m.markers)[0].name = pad + bad + pad; });
        }
        add("empty marker name (legal)", [&](model& m) { (*m.markers)[0].name.clear(); });
        add("200-byte marker name (two-byte length, legal)",
            [&](model& m) { (*m.markers)[0].name = std::string(200, 'n'); });
    }
    return out;
}

TEST(StreamValidator, MatchesValidateOnContentErrorsAtEveryChunkSize) {
    for (const sample& s : content_error_files()) {
        for (const validate_options& o : every_layout_and_level()) {
            const bool default_options =
                o.level == level::full && o.layout == layout_choice::automatic;
            expect_same_at_every_chunking(s.name, s.data, o,
                                          default_options ? sizes::all : sizes::sample);
        }
    }
}

TEST(StreamValidator, MatchesValidateUnderEveryLimitAtEveryChunkSize) {
    for (shape sh : all_shapes) {
        const bytes b = small_file(sh);
        std::vector<std::pair<std::string, limits>> cases;
        auto add = [&](const std::string& what, const std::function<void(limits&)>& set) {
            limits l;
            set(l);
            cases.emplace_back(what, l);
        };
        add("max_bytes one short", [&](limits& l) { l.max_bytes = b.size() - 1; });
        add("max_bytes exact", [&](limits& l) { l.max_bytes = b.size(); });
        add("max_bytes 0", [&](limits& l) { l.max_bytes = 0; });
        add("3 keys per curve", [&](limits& l) { l.max_keyframes_per_curve = 3; });
        add("4 keys per curve", [&](limits& l) { l.max_keyframes_per_curve = 4; });
        add("10 keys in all", [&](limits& l) { l.max_total_keyframes = 10; });
        add("1 marker", [&](limits& l) { l.max_markers = 1; });
        add("4-byte marker names", [&](limits& l) { l.max_marker_name_bytes = 4; });
        add("6-byte marker names", [&](limits& l) { l.max_marker_name_bytes = 6; });
        for (const auto& [what, lim] : cases) {
            // The file's own layout, so that the limit is its only defect.
            const layout_choice own =
                sh == shape::v11_compact ? layout_choice::compact : layout_choice::full;
            for (layout_choice c : {layout_choice::automatic, own}) {
                expect_same_at_every_chunking(std::string(shape_name(sh)) + ", " + what, b,
                                              validate_options{level::full, c, lim});
            }
        }
    }
}

const char* const june_names[] = {"InputAnimation-20190606-161538.bin",
                                  "InputAnimation-20190607-120309.bin",
                                  "InputAnimation-20190607-121439.bin"};

// The chunk sizes of a real upload (1 byte to 64 KiB) and the odd sizes around a keyframe's.
constexpr std::size_t june_chunk_sizes[] = {1, 8, 27, 28, 29, 64, 4096, 65536};

void expect_same_on_large_file(const std::string& name, const bytes& b,
                               const validate_options& options,
                               std::span<const std::size_t> sizes = june_chunk_sizes) {
    const report whole = validate(view(b), options);
    for (std::size_t size : sizes) {
        ASSERT_EQ(difference(whole, stream_in_chunks_of(view(b), options, size)), "")
            << name << ", chunks of " << size;
    }
    std::mt19937 rng(test_seed(42));
    ASSERT_EQ(difference(whole, stream_at_random(view(b), options, rng, 70000)), "")
        << name << ", random chunks";
    ASSERT_EQ(difference(whole, stream_in_chunks_of(view(b), options, b.size())), "")
        << name << ", one chunk";
}

TEST(StreamValidator, MatchesValidateOnTheJuneRecordings) {
    bool any = false;
    for (const char* name : june_names) {
        const auto b = june_recording(name);
        if (!b) continue;
        any = true;
        const report whole = validate(view(*b));
        ASSERT_TRUE(whole.valid()) << name;
        expect_same_on_large_file(name, *b, validate_options{});
        const std::size_t structure_sizes[] = {29, 4096};
        expect_same_on_large_file(name, *b, validate_options{level::structure, {}, {}},
                                  structure_sizes);
    }
    if (!any) GTEST_SKIP() << "no June 2019 recordings in " << recordings_dir();
}

// The June bodies are 389 full-layout curves: under a v1.1 header with the camera and hands
// flags they are a full-layout v1.1 file, which `automatic` must recognize with the compact
// walk failing somewhere in a megabyte of keyframes.
TEST(StreamValidator, MatchesValidateOnTheJuneRecordingsAsFullLayoutV11Files) {
    bool any = false;
    for (const char* name : june_names) {
        auto b = june_recording(name);
        if (!b) continue;
        any = true;
        put_i32(*b, 12, 1);
        const std::byte flags[] = {std::byte{1}, std::byte{1}, std::byte{0}};
        b->insert(b->begin() + 16, std::begin(flags), std::end(flags));
        const report whole = validate(view(*b));
        ASSERT_TRUE(whole.valid()) << name;
        ASSERT_EQ(whole.summary.layout, layout::full);
        expect_same_on_large_file(std::string(name) + " as v1.1", *b, validate_options{});
    }
    if (!any) GTEST_SKIP() << "no June 2019 recordings in " << recordings_dir();
}

// Truncations of a real recording, as snapshots of one stream fed at random boundaries.
TEST(StreamValidator, MatchesValidateOnTruncatedJuneRecordings) {
    const auto b = june_recording(june_names[0]);
    if (!b) GTEST_SKIP() << "no June 2019 recordings in " << recordings_dir();
    std::mt19937 rng(test_seed(7));
    std::uniform_int_distribution<std::size_t> size(1, 20000);
    stream_validator v;
    std::size_t pos = 0;
    while (pos < b->size()) {
        const std::size_t n = std::min(size(rng), b->size() - pos);
        v.feed(view(*b).subspan(pos, n));
        pos += n;
        stream_validator snapshot = v;
        ASSERT_EQ(difference(validate(view(*b).first(pos)), streamed{snapshot.finish(), false}), "")
            << "first " << pos << " bytes";
    }
}

// A v1.1 file of a few curves with keys of the one layout or the other, so that both layouts'
// walks get somewhere; now and then (`rarely`) a defect: an odd wrap mode or count, a key of the
// other layout, an unsorted or NaN time, a bad weighted mode, a bad marker, trailing bytes; and
// one file in four truncated.
bytes random_structured_file(std::mt19937& rng) {
    auto pick = [&](int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng); };
    auto rarely = [&] { return pick(40) == 0; };
    auto put = [](bytes& b, std::uint32_t v) {
        for (int i = 0; i < 4; ++i) b.push_back(static_cast<std::byte>((v >> (8 * i)) & 0xff));
    };
    auto put_float = [&](bytes& b, float f) { put(b, std::bit_cast<std::uint32_t>(f)); };
    bytes b = {std::byte{0xc6}, std::byte{0x42}, std::byte{0x9e}, std::byte{0x0f},
               std::byte{0x6e}, std::byte{0xaf}, std::byte{0x8f}, std::byte{0x6a}};
    put(b, 1);
    put(b, 1);
    const block_flags blocks_choices[] = {
        {false, false, true}, {true, false, false}, {true, false, true}, {false, false, false}};
    const block_flags blocks = blocks_choices[pick(4)];
    b.push_back(std::byte{blocks.camera});
    b.push_back(std::byte{blocks.hands});
    b.push_back(std::byte{blocks.gaze});
    const bool full = pick(2) == 1;
    const std::int32_t odd_wraps[] = {0, 1, 2, 4, 3, -1};
    float time = 0.0f;
    for (std::size_t c = 0; c < curve_count(blocks); ++c) {
        for (int w = 0; w < 2; ++w)
            put(b, static_cast<std::uint32_t>(rarely() ? odd_wraps[pick(6)] : 8));
        const std::int32_t count = rarely() ? (pick(2) == 0 ? -1 : 1000) : pick(5);
        put(b, static_cast<std::uint32_t>(count));
        for (int k = 0; k < std::clamp(count, 0, 4); ++k) {
            time += rarely() ? -0.5f : 0.25f;
            put_float(b, rarely() ? std::numeric_limits<float>::quiet_NaN() : time);
            put_float(b, static_cast<float>(pick(3)));
            if (full != rarely()) {
                for (int f = 0; f < 4; ++f) put_float(b, 0.0f);
                put(b, rarely() ? 4u : 3u);
            }
        }
    }
    if (pick(4) != 0) {
        const int markers = pick(3);
        put(b, static_cast<std::uint32_t>(rarely() ? -1 : markers));
        const char* const tokens[] = {"a", "z", "\xc3\xbc", "\xe2\x82\xac"};
        for (int m = 0; m < markers; ++m) {
            put_float(b, 0.5f);
            std::string name;
            for (int t = pick(60); t > 0; --t) name += rarely() ? "\xff" : tokens[pick(4)];
            if (rarely()) {
                for (int i = 0; i < 5; ++i) b.push_back(std::byte{0x80});
            } else if (name.size() < 0x80) {
                b.push_back(static_cast<std::byte>(name.size()));
            } else {
                b.push_back(static_cast<std::byte>(0x80 | (name.size() & 0x7f)));
                b.push_back(static_cast<std::byte>(name.size() >> 7));
            }
            for (char ch : name) b.push_back(static_cast<std::byte>(ch));
        }
    }
    if (rarely()) b.push_back(std::byte{0});
    if (pick(4) == 0) b.resize(std::uniform_int_distribution<std::size_t>(0, b.size())(rng));
    return b;
}

TEST(StreamValidator, MatchesValidateOnRandomlyStructuredFiles) {
    std::mt19937 rng(test_seed(2024));
    for (int i = 0; i < 3000; ++i) {
        const bytes b = random_structured_file(rng);
        for (layout_choice c : {layout_choice::automatic, layout_choice::compact}) {
            const validate_options options{level::full, c, {}};
            ASSERT_EQ(
                difference(validate(view(b), options), stream_at_random(view(b), options, rng, 40)),
                "")
                << "file " << i << " (" << b.size() << " bytes), " << describe(options);
        }
    }
}

TEST(StreamValidator, MatchesValidateOnRandomBytes) {
    std::mt19937 rng(test_seed(99));
    std::uniform_int_distribution<int> byte(0, 255);
    // Nothing, a v1.0 header, a v1.1 header with its flags, a v1.1 header without them.
    const bytes v10 = small_file(shape::v10);
    const bytes v11 = small_file(shape::v11_compact);
    const bytes starts[] = {{},
                            bytes(v10.begin(), v10.begin() + 16),
                            bytes(v11.begin(), v11.begin() + 19),
                            bytes(v11.begin(), v11.begin() + 16)};
    for (int i = 0; i < 4000; ++i) {
        bytes b = starts[static_cast<std::size_t>(i) % std::size(starts)];
        const std::size_t extra = std::uniform_int_distribution<std::size_t>(0, 120)(rng);
        for (std::size_t k = 0; k < extra; ++k) b.push_back(static_cast<std::byte>(byte(rng)));
        const validate_options options{};
        ASSERT_EQ(
            difference(validate(view(b), options), stream_at_random(view(b), options, rng, 16)), "")
            << "input " << i << " (" << b.size() << " bytes)";
    }
}

TEST(StreamValidator, ReportsAValidFileAsDoneOnceItsMarkerListIsComplete) {
    for (shape s : all_shapes) {
        const bytes b = small_file(s);
        stream_validator v;
        EXPECT_EQ(v.feed(view(b).first(b.size() - 1)), stream_status::more) << shape_name(s);
        EXPECT_EQ(v.feed(view(b).last(1)), stream_status::done) << shape_name(s);
        EXPECT_EQ(v.bytes_consumed(), b.size());
        const report& r = v.finish();
        EXPECT_TRUE(r.valid()) << shape_name(s) << ": " << r.error.message();
        EXPECT_TRUE(v.finished());
        EXPECT_EQ(r.summary.bytes, b.size());
        EXPECT_EQ(&r, &v.result());
    }
}

TEST(StreamValidator, KeepsAFileWithoutMarkerListOpenUntilFinish) {
    const bytes b = small_file(shape::v11_compact, false);
    stream_validator v;
    EXPECT_EQ(v.feed(view(b)), stream_status::more);
    const report& r = v.finish();
    EXPECT_TRUE(r.valid()) << r.error.message();
    EXPECT_FALSE(r.summary.markers.has_value());
}

TEST(StreamValidator, PicksTheFullLayoutForAFullLayoutV11FileUnderAutomatic) {
    const bytes b = small_file(shape::v11_full);
    stream_validator v;
    v.feed(view(b));
    const report& r = v.finish();
    ASSERT_TRUE(r.valid()) << r.error.message();
    EXPECT_EQ(r.summary.layout, layout::full);
    EXPECT_EQ(r.summary.curves, curve_id_count);
}

// The layout is known once no byte to come can change it: what a streaming conversion waits for.
TEST(StreamValidator, KnowsTheLayoutOnceOnlyOneWalkIsLeft) {
    for (const shape s : all_shapes) {
        const bytes b = small_file(s);
        stream_validator v;
        std::size_t known_at = 0;
        for (std::size_t at = 0; at < b.size() && known_at == 0; ++at) {
            EXPECT_FALSE(v.layout_known()) << shape_name(s) << " at " << at;
            v.feed(std::span(b).subspan(at, 1));
            if (v.layout_known()) known_at = at + 1;
        }
        ASSERT_NE(known_at, 0u) << shape_name(s);
        const file_header h = *v.layout_known();
        EXPECT_EQ(h.edition, edition::v1);
        EXPECT_EQ(h.layout, s == shape::v11_compact ? layout::compact : layout::full);
        // v1.0 has one layout: known with its header; v1.1 under automatic once a walk failed.
        if (s == shape::v10) {
            EXPECT_EQ(known_at, header_size);
        } else {
            EXPECT_GT(known_at, header_size + 3) << shape_name(s);
        }
        v.feed(std::span(b).subspan(known_at));
        EXPECT_EQ(v.finish().summary.layout, h.layout);
    }
    // A layout asked for is known with the header.
    validate_options compact;
    compact.layout = layout_choice::compact;
    stream_validator asked(compact);
    const bytes b = small_file(shape::v11_compact);
    asked.feed(std::span(b).first(header_size + 3));
    ASSERT_TRUE(asked.layout_known());
    EXPECT_EQ(asked.layout_known()->layout, layout::compact);
}

TEST(StreamValidator, NeverKnowsTheLayoutOfA2019FileBeforeItsEndNorOfAnInvalidOne) {
    const bytes v10 = small_file(shape::v10);
    const bytes june(v10.begin() + header_size, v10.end());
    stream_validator v;
    v.feed(view(june));
    EXPECT_FALSE(v.layout_known());
    bytes bad = small_file(shape::v11_compact);
    bad[header_size] = std::byte{7};
    stream_validator w;
    EXPECT_EQ(w.feed(view(bad)), stream_status::error);
    EXPECT_FALSE(w.layout_known());
}

TEST(StreamValidator, ReportsNegativeTimeAndDroppedRotationWWarnings) {
    model m = small_model(shape::v11_compact);
    const curve_id w = joint_curve(side::right, joint::index_tip, pose_channel::rotation_w);
    for (pose_channel c :
         {pose_channel::rotation_x, pose_channel::rotation_y, pose_channel::rotation_z}) {
        m[joint_curve(side::right, joint::index_tip, c)].keys = {{0.0f, 0.0f}, {1.0f, 0.0f}};
    }
    m[w].keys = {{0.0f, 1.0f}};
    m[gaze_curve(ray_channel::origin_y)].keys[0].time = -0.5f;
    const bytes b = write(m);
    stream_validator v;
    v.feed(view(b));
    const report& r = v.finish();
    ASSERT_TRUE(r.valid()) << r.error.message();
    ASSERT_EQ(r.warning_count, 2u);
    EXPECT_EQ(r.warnings()[0].code, warning_code::negative_time);
    EXPECT_EQ(r.warnings()[0].curve, gaze_curve(ray_channel::origin_y));
    EXPECT_EQ(r.warnings()[0].value, -0.5f);
    EXPECT_EQ(r.warnings()[1].code, warning_code::dropped_rotation_w);
    EXPECT_EQ(r.warnings()[1].curve, w);
    EXPECT_EQ(r.warnings_found, 2u);
}

// It would need the keys of a pose's four rotation curves side by side, which are up to
// megabytes apart in the file.
TEST(StreamValidator, DoesNotReportNonUnitQuaternions) {
    const bytes b = small_file(shape::v10);
    const report whole = validate(view(b));
    ASSERT_TRUE(std::any_of(whole.warnings().begin(), whole.warnings().end(), [](const warning& w) {
        return w.code == warning_code::non_unit_quaternion;
    })) << "the small file's left wrist rotation is not unit length";
    stream_validator v;
    v.feed(view(b));
    const report& r = v.finish();
    EXPECT_TRUE(r.valid());
    EXPECT_EQ(r.warning_count, 0u);
}

TEST(StreamValidator, ACopyGoesOnIndependentlyOfTheOriginal) {
    const bytes b = small_file(shape::v11_full);
    stream_validator v;
    v.feed(view(b).first(1000));
    stream_validator copy = v;
    copy.feed(view(b).subspan(1000));
    EXPECT_TRUE(copy.finish().valid());
    const report& cut = v.finish();
    EXPECT_EQ(cut.error.code, errc::truncated);
    EXPECT_EQ(cut.summary.bytes, 1000u);
}

}  // namespace
