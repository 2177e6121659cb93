// Specification of the pull parser on valid files (FORMAT.md sections 2-5): what it yields, in
// which order, and how views read keyframes and markers of every layout.
#include <gtest/gtest.h>

#include <algorithm>
#include <iterator>
#include <limits>
#include <ranges>
#include <string>
#include <vector>

#include "support/builders.hpp"

using namespace inputanim;
using namespace inputanim::testing;

static_assert(std::ranges::random_access_range<keyframes_view>);
static_assert(std::ranges::sized_range<keyframes_view>);
static_assert(std::random_access_iterator<keyframes_view::iterator>);

namespace {

constexpr std::int32_t legal_wraps[] = {0, 1, 2, 4, 8};

std::vector<block_flags> every_flag_combination() {
    std::vector<block_flags> out;
    for (int bits = 0; bits < 8; ++bits) {
        out.push_back(block_flags{(bits & 1) != 0, (bits & 2) != 0, (bits & 4) != 0});
    }
    return out;
}

// Every curve gets its own key count, wrap modes and values, so that a curve read from the wrong
// place or in the wrong order shows.
model distinct_model(int minor, layout lay, block_flags blocks) {
    model m;
    m.minor = minor;
    m.layout = lay;
    m.blocks = blocks;
    for (std::size_t i = 0; i < curve_id_count; ++i) {
        curve& c = m.curves[i];
        c.pre_wrap = legal_wraps[i % 5];
        c.post_wrap = legal_wraps[(i + 2) % 5];
        for (std::size_t k = 0; k < i % 4; ++k) {
            keyframe key{0.5f * static_cast<float>(k),
                         static_cast<float>(i) + static_cast<float>(k)};
            if (kind_of(curve_id(i)) == curve_kind::bool_curve)
                key.value = static_cast<float>(k % 2);
            c.keys.push_back(key);
        }
    }
    m.markers = std::vector<marker>{{1.5f, "m"}};
    return m;
}

struct read_result {
    std::vector<curve_view> curves;
    std::vector<marker_view> markers;
    item last = item::curve;
};

read_result read_all(reader& r) {
    read_result out;
    for (item it = r.next();; it = r.next()) {
        if (it == item::curve) {
            out.curves.push_back(r.curve());
        } else if (it == item::marker) {
            out.markers.push_back(r.marker());
        } else {
            out.last = it;
            return out;
        }
    }
}

void expect_curves_as_written(const model& m, const bytes& b, const read_result& got) {
    const block_flags blocks = m.minor == 0 ? block_flags{true, true, false} : m.blocks;
    const bool full = m.minor == 0 || m.layout == layout::full;
    ASSERT_EQ(got.curves.size(), curve_count(blocks));
    for (std::size_t i = 0; i < got.curves.size(); ++i) {
        const curve_view& c = got.curves[i];
        const curve_id id = curve_at(blocks, i);
        SCOPED_TRACE(curve_path(id));
        EXPECT_EQ(c.id, id);
        EXPECT_EQ(c.index, i);
        EXPECT_EQ(c.path(), curve_path(id));
        EXPECT_EQ(c.kind, kind_of(id));
        EXPECT_EQ(c.pre_wrap, m[id].pre_wrap);
        EXPECT_EQ(c.post_wrap, m[id].post_wrap);
        EXPECT_EQ(c.offset, curve_offset(m, i));
        ASSERT_EQ(c.size(), m[id].keys.size());
        const std::size_t stride = kind_of(id) == curve_kind::float_curve && full ? 28 : 8;
        if (!c.keys.empty()) {
            EXPECT_EQ(c.keys.stride(), stride);
            EXPECT_EQ(c.keys.data(), b.data() + c.offset + 12);
        }
        for (std::size_t k = 0; k < c.size(); ++k) {
            EXPECT_EQ(c.keys[k].time(), m[id].keys[k].time);
            EXPECT_EQ(c.keys[k].value(), m[id].keys[k].value);
            EXPECT_EQ(c.keyframe_offset(k), c.offset + 12 + k * stride);
        }
    }
}

std::string block_string(block_flags f) {
    return std::to_string(f.camera) + std::to_string(f.hands) + std::to_string(f.gaze);
}

}  // namespace

TEST(ReaderOrder, V10FileYields389CurvesInFileOrderThenMarkersThenEnd) {
    const model m = distinct_model(0, layout::full, {});
    const bytes b = write(m);
    reader r(view(b));
    const read_result got = read_all(r);
    EXPECT_EQ(got.last, item::end);
    expect_curves_as_written(m, b, got);
    EXPECT_EQ(r.header().major, 1);
    EXPECT_EQ(r.header().minor, 0);
    EXPECT_EQ(r.header().layout, layout::full);
    EXPECT_EQ(r.header().blocks, (block_flags{true, true, false}));
    EXPECT_EQ(r.header().curve_count, 389);
    ASSERT_EQ(got.markers.size(), 1u);
    EXPECT_EQ(got.markers[0].name, "m");
}

TEST(ReaderOrder, V11FilesOfEveryFlagCombinationAndLayoutYieldTheirCurvesInOrder) {
    for (const layout lay : {layout::compact, layout::full}) {
        for (const block_flags f : every_flag_combination()) {
            SCOPED_TRACE((lay == layout::compact ? "compact " : "full ") + block_string(f));
            const model m = distinct_model(1, lay, f);
            const bytes b = write(m);
            reader r(view(b));
            const read_result got = read_all(r);
            EXPECT_EQ(got.last, item::end) << r.error().message();
            expect_curves_as_written(m, b, got);
            EXPECT_EQ(r.header().minor, 1);
            EXPECT_EQ(r.header().blocks, f);
            EXPECT_EQ(r.header().curve_count, curve_count(f));
            EXPECT_EQ(got.markers.size(), 1u);
            EXPECT_EQ(r.position(), b.size());
        }
    }
}

TEST(ReaderOrder, AllFlagsZeroFileIsHeaderAndMarkerListOnly) {
    model m = empty_model(shape::v11_compact);
    m.blocks = {false, false, false};
    m.markers = std::vector<marker>{{0.0f, "only"}};
    const bytes b = write(m);
    ASSERT_EQ(b.size(), 19u + 4u + 4u + 1u + 4u);
    reader r(view(b));
    EXPECT_EQ(r.next(), item::marker);
    EXPECT_EQ(r.marker().offset, 23u);
    EXPECT_EQ(r.marker().name, "only");
    EXPECT_EQ(r.next(), item::end);
    EXPECT_EQ(r.header().curve_count, 0);
}

TEST(ReaderOrder, SmallFilesOfEveryShapeYieldCurvesAsWritten) {
    for (shape s : all_shapes) {
        SCOPED_TRACE(shape_name(s));
        const model m = small_model(s);
        const bytes b = write(m);
        reader r(view(b));
        const read_result got = read_all(r);
        EXPECT_EQ(got.last, item::end);
        expect_curves_as_written(m, b, got);
        EXPECT_EQ(r.total_keyframes(), 7u * 4 * 2 + 3 + (s == shape::v10 ? 0u : 6u * 4));
    }
}

TEST(ReaderOpen, OpenReadsTheHeaderAndNextOpensImplicitly) {
    const bytes b = small_file(shape::v11_full);
    reader explicit_open(view(b));
    EXPECT_FALSE(explicit_open.open());
    EXPECT_EQ(explicit_open.header().layout, layout::full);
    EXPECT_EQ(explicit_open.header().curve_count, 395);
    EXPECT_EQ(explicit_open.position(), 19u);
    EXPECT_FALSE(explicit_open.open()) << "a second open changes nothing";
    EXPECT_EQ(explicit_open.next(), item::curve);
    EXPECT_EQ(explicit_open.curve().offset, 19u);

    reader implicit_open(view(b));
    EXPECT_EQ(implicit_open.next(), item::curve);
    EXPECT_EQ(implicit_open.header().curve_count, 395);
    EXPECT_EQ(implicit_open.curve().id, curve_id(0));
}

TEST(ReaderEnd, EndRepeatsAfterTheEnd) {
    for (bool with_markers : {true, false}) {
        const bytes b = small_file(shape::v11_compact, with_markers);
        reader r(view(b));
        EXPECT_EQ(read_all(r).last, item::end);
        for (int i = 0; i < 3; ++i) EXPECT_EQ(r.next(), item::end);
        EXPECT_FALSE(r.error());
        EXPECT_EQ(r.position(), b.size());
    }
}

TEST(KeyframeViews, RandomAccessAndRangeForAgree) {
    const model m = small_model(shape::v11_compact);
    const bytes b = write(m);
    reader r(view(b));
    ASSERT_EQ(r.next(), item::curve);
    const keyframes_view keys = r.curve().keys;
    const auto& expected = m[camera_curve(pose_channel::position_x)].keys;
    ASSERT_EQ(keys.size(), 4u);
    EXPECT_FALSE(keys.empty());
    std::size_t i = 0;
    for (const keyframe_view k : keys) {
        EXPECT_EQ(k.time(), expected[i].time);
        EXPECT_EQ(k.value(), expected[i].value);
        EXPECT_EQ(k.time(), keys[i].time());
        EXPECT_EQ(k.data(), keys[i].data());
        ++i;
    }
    EXPECT_EQ(i, 4u);
    EXPECT_EQ(keys.front().time(), 0.0f);
    EXPECT_EQ(keys.back().time(), 0.75f);
    EXPECT_EQ(keys.end() - keys.begin(), 4);
    EXPECT_EQ((*(keys.begin() + 3)).time(), 0.75f);
    EXPECT_EQ(keys.begin()[2].value(), expected[2].value);
    auto it = keys.end();
    --it;
    EXPECT_EQ((*it).time(), 0.75f);
    EXPECT_TRUE(keys.begin() < it);
}

TEST(KeyframeViews, WorkWithStandardAlgorithmsOverTimes) {
    const bytes b = small_file(shape::v11_full);
    reader r(view(b));
    ASSERT_EQ(r.next(), item::curve);
    const keyframes_view keys = r.curve().keys;

    const auto by_time = [](const keyframe_view& k, float t) { return k.time() < t; };
    EXPECT_EQ(std::lower_bound(keys.begin(), keys.end(), 0.5f, by_time) - keys.begin(), 2);
    EXPECT_EQ(std::lower_bound(keys.begin(), keys.end(), 0.3f, by_time) - keys.begin(), 2);
    EXPECT_EQ(std::lower_bound(keys.begin(), keys.end(), 9.0f, by_time), keys.end());

    EXPECT_EQ(std::ranges::lower_bound(keys, 0.25f, {}, &keyframe_view::time) - keys.begin(), 1);
    EXPECT_EQ(std::ranges::upper_bound(keys, 0.25f, {}, &keyframe_view::time) - keys.begin(), 2);
    EXPECT_TRUE(std::ranges::is_sorted(keys, {}, &keyframe_view::time));
    EXPECT_EQ(std::ranges::distance(keys), 4);
    const auto found = std::ranges::find(keys, 2.0f, &keyframe_view::value);
    ASSERT_NE(found, keys.end());
    EXPECT_EQ((*found).time(), 0.5f);
    std::vector<float> times;
    std::ranges::transform(keys, std::back_inserter(times), &keyframe_view::time);
    EXPECT_EQ(times, (std::vector<float>{0.0f, 0.25f, 0.5f, 0.75f}));
    const auto reversed = keys | std::views::reverse;
    EXPECT_EQ((*reversed.begin()).time(), 0.75f);
}

TEST(KeyframeViews, FullLayoutKeysCarryTangentsWeightsAndMode) {
    for (shape s : {shape::v10, shape::v11_full}) {
        SCOPED_TRACE(shape_name(s));
        const model m = small_model(s);
        const bytes b = write(m);
        recording rec;
        ASSERT_FALSE(rec.open(view(b)));
        const curve_view* c = rec.camera(pose_channel::position_y);
        ASSERT_NE(c, nullptr);
        EXPECT_EQ(c->keys.stride(), 28u);
        const auto& expected = m[camera_curve(pose_channel::position_y)].keys;
        for (std::size_t i = 0; i < 4; ++i) {
            const keyframe_view k = c->keys[i];
            EXPECT_TRUE(k.has_tangents());
            EXPECT_EQ(k.in_tangent(), expected[i].in_tangent);
            EXPECT_EQ(k.out_tangent(), -0.25f);
            EXPECT_EQ(k.in_weight(), 1.0f / 3.0f);
            EXPECT_EQ(k.out_weight(), 0.5f);
            EXPECT_EQ(k.weighted_mode_raw(), static_cast<std::int32_t>(i));
            EXPECT_EQ(k.weighted_mode(), static_cast<weighted_mode>(i));
        }
        EXPECT_EQ(c->keys[2].in_tangent(), 1.0f);
    }
}

TEST(KeyframeViews, CompactAndBoolKeysReadAsTangentsZeroWeightsZeroModeBoth) {
    const bytes b = small_file(shape::v11_compact);
    recording rec;
    ASSERT_FALSE(rec.open(view(b)));
    for (const curve_view* c :
         {rec.camera(pose_channel::position_x), rec.hand(hand_state::left_tracked),
          rec.gaze(ray_channel::direction_z)}) {
        ASSERT_NE(c, nullptr);
        SCOPED_TRACE(c->path());
        EXPECT_EQ(c->keys.stride(), 8u);
        for (const keyframe_view k : c->keys) {
            EXPECT_FALSE(k.has_tangents());
            EXPECT_EQ(k.in_tangent(), 0.0f);
            EXPECT_EQ(k.out_tangent(), 0.0f);
            EXPECT_EQ(k.in_weight(), 0.0f);
            EXPECT_EQ(k.out_weight(), 0.0f);
            EXPECT_EQ(k.weighted_mode_raw(), 3);
            EXPECT_EQ(k.weighted_mode(), weighted_mode::both);
        }
    }
}

TEST(KeyframeViews, BoolKeysAreEightBytesInFullLayoutsToo) {
    for (shape s : {shape::v10, shape::v11_full}) {
        const bytes b = small_file(s);
        recording rec;
        ASSERT_FALSE(rec.open(view(b)));
        const curve_view* c = rec.hand(hand_state::left_tracked);
        ASSERT_NE(c, nullptr);
        EXPECT_EQ(c->kind, curve_kind::bool_curve);
        EXPECT_EQ(c->keys.stride(), 8u);
        ASSERT_EQ(c->size(), 2u);
        EXPECT_EQ(c->keys[0].value(), 1.0f);
        EXPECT_EQ(c->keys[1].time(), 0.5f);
        EXPECT_FALSE(c->keys[1].has_tangents());
    }
}

TEST(ReaderMarkers, MarkersYieldTimeNameIndexAndOffset) {
    const model m = small_model(shape::v11_compact);
    const bytes b = write(m);
    reader r(view(b));
    const read_result got = read_all(r);
    EXPECT_TRUE(r.has_marker_list());
    EXPECT_EQ(r.marker_count(), 2u);
    ASSERT_EQ(got.markers.size(), 2u);
    const std::size_t list = marker_list_offset(m);
    EXPECT_EQ(got.markers[0].index, 0u);
    EXPECT_EQ(got.markers[0].offset, list + 4);
    EXPECT_EQ(got.markers[0].time, 0.25f);
    EXPECT_EQ(got.markers[0].name, "start");
    EXPECT_EQ(got.markers[1].index, 1u);
    EXPECT_EQ(got.markers[1].offset, list + 4 + 4 + 1 + 5);
    EXPECT_EQ(got.markers[1].time, 0.5f);
    EXPECT_EQ(got.markers[1].name, "gr\xc3\xbc\xc3\x9f");
    EXPECT_EQ(got.markers[1].name.size(), 6u);
    EXPECT_EQ(reinterpret_cast<const std::byte*>(got.markers[1].name.data()),
              b.data() + list + 4 + 4 + 1 + 5 + 4 + 1);
}

TEST(ReaderMarkers, NamesOf128BytesOrMoreUseATwoByteLength) {
    model m = empty_model(shape::v11_compact);
    const std::string long_name(200, 'n');
    const std::string exactly_128(128, 'x');
    m.markers = std::vector<marker>{{1.0f, long_name}, {2.0f, exactly_128}, {3.0f, ""}};
    const bytes b = write(m);
    const std::size_t list = marker_list_offset(m);
    // 200 = 0x48 | 0x80, then 1.
    EXPECT_EQ(b[list + 8], std::byte{0xc8});
    EXPECT_EQ(b[list + 9], std::byte{0x01});
    reader r(view(b));
    const read_result got = read_all(r);
    EXPECT_EQ(got.last, item::end);
    ASSERT_EQ(got.markers.size(), 3u);
    EXPECT_EQ(got.markers[0].name, long_name);
    EXPECT_EQ(got.markers[1].offset, list + 4 + 4 + 2 + 200);
    EXPECT_EQ(got.markers[1].name, exactly_128);
    EXPECT_EQ(got.markers[2].offset, list + 4 + 4 + 2 + 200 + 4 + 2 + 128);
    EXPECT_EQ(got.markers[2].name, "");
    EXPECT_EQ(got.markers[2].time, 3.0f);
}

TEST(ReaderMarkers, EmptyMarkerListIsPresentWithCountZero) {
    const bytes b = write(empty_model(shape::v10));
    reader r(view(b));
    const read_result got = read_all(r);
    EXPECT_EQ(got.last, item::end);
    EXPECT_TRUE(got.markers.empty());
    EXPECT_TRUE(r.has_marker_list());
    EXPECT_EQ(r.marker_count(), 0u);
}

TEST(ReaderMarkers, FileEndingAfterTheLastCurveHasNoMarkerList) {
    for (shape s : all_shapes) {
        SCOPED_TRACE(shape_name(s));
        const model m = small_model(s, false);
        const bytes b = write(m);
        EXPECT_EQ(b.size(), marker_list_offset(m));
        reader r(view(b));
        const read_result got = read_all(r);
        EXPECT_EQ(got.last, item::end);
        EXPECT_EQ(got.curves.size(), s == shape::v10 ? 389u : 395u);
        EXPECT_TRUE(got.markers.empty());
        EXPECT_FALSE(r.has_marker_list());
        EXPECT_EQ(r.marker_count(), 0u);
    }
}

TEST(ReaderSizes, EmptyFilesHaveTheSizesFormatMdGives) {
    EXPECT_EQ(write(empty_model(shape::v11_compact)).size(), 4763u);
    EXPECT_EQ(write(empty_model(shape::v11_full)).size(), 4763u);
    EXPECT_EQ(write(empty_model(shape::v10)).size(), 4688u);
}

TEST(LayoutDetection, CompactFileIsDetectedCompact) {
    const bytes b = small_file(shape::v11_compact);
    reader r(view(b));
    EXPECT_FALSE(r.open());
    EXPECT_EQ(r.header().layout, layout::compact);
    EXPECT_EQ(read_all(r).last, item::end);
}

TEST(LayoutDetection, FullFileIsDetectedFull) {
    const bytes b = small_file(shape::v11_full);
    reader r(view(b));
    EXPECT_FALSE(r.open());
    EXPECT_EQ(r.header().layout, layout::full);
    const read_result got = read_all(r);
    EXPECT_EQ(got.last, item::end);
    EXPECT_EQ(got.curves[0].keys.stride(), 28u);
}

TEST(LayoutDetection, ForcedLayoutIsUsedWithoutDetection) {
    const bytes compact = small_file(shape::v11_compact);
    const bytes full = small_file(shape::v11_full);

    reader compact_as_compact(view(compact), read_options{layout_choice::compact});
    EXPECT_EQ(read_all(compact_as_compact).last, item::end);
    EXPECT_EQ(compact_as_compact.header().layout, layout::compact);

    reader full_as_full(view(full), read_options{layout_choice::full});
    EXPECT_EQ(read_all(full_as_full).last, item::end);
    EXPECT_EQ(full_as_full.header().layout, layout::full);

    reader compact_as_full(view(compact), read_options{layout_choice::full});
    EXPECT_FALSE(compact_as_full.open()) << "opening does not walk when the layout is forced";
    EXPECT_EQ(compact_as_full.header().layout, layout::full);
    EXPECT_EQ(read_all(compact_as_full).last, item::error);

    reader full_as_compact(view(full), read_options{layout_choice::compact});
    EXPECT_FALSE(full_as_compact.open());
    EXPECT_EQ(full_as_compact.header().layout, layout::compact);
    EXPECT_EQ(read_all(full_as_compact).last, item::error);
}

TEST(LayoutDetection, FileSoundUnderBothLayoutsIsCompact) {
    // With no float keyframe the two layouts are byte-identical.
    for (const block_flags f : every_flag_combination()) {
        model m = empty_model(shape::v11_full);
        m.blocks = f;
        m[hand_state_curve(hand_state::left_tracked)].keys = {{0.0f, 1.0f}};
        const bytes b = write(m);
        reader r(view(b));
        EXPECT_FALSE(r.open());
        EXPECT_EQ(r.header().layout, layout::compact) << block_string(f);
        EXPECT_EQ(read_all(r).last, item::end);
    }
}

TEST(LayoutDetection, V10FilesAreFullWhateverLayoutIsAsked) {
    const bytes b = small_file(shape::v10);
    for (layout_choice choice :
         {layout_choice::automatic, layout_choice::compact, layout_choice::full}) {
        reader r(view(b), read_options{choice});
        const read_result got = read_all(r);
        EXPECT_EQ(got.last, item::end);
        EXPECT_EQ(r.header().layout, layout::full);
        EXPECT_EQ(got.curves[0].keys.stride(), 28u);
    }
}

TEST(ReaderRealRecordings, JuneRecordingsReadAsV10) {
    const auto b = june_recording("InputAnimation-20190607-120309.bin");
    if (!b) GTEST_SKIP() << "recordings not available";
    reader r(view(*b));
    const read_result got = read_all(r);
    EXPECT_EQ(got.last, item::end) << r.error().message();
    EXPECT_EQ(got.curves.size(), 389u);
    EXPECT_EQ(r.total_keyframes(), 45467u);
    EXPECT_TRUE(r.has_marker_list());
    EXPECT_EQ(r.marker_count(), 0u);
    for (const curve_view& c : got.curves) {
        EXPECT_EQ(c.pre_wrap, 8);
        EXPECT_EQ(c.post_wrap, 8);
    }
}
