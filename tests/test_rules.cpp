// Specification of the layout choice and the walk plan in lib/detail/rules.hpp (FORMAT.md sections
// 3 and 9), which every walker calls: the walks a layout choice tries, in which order, which walk
// wins, when a walker running them side by side knows it, and what each curve of a walk is.
#include <gtest/gtest.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include "detail/rules.hpp"

using namespace inputanim;
using namespace inputanim::detail;

namespace {

void put_u32(std::vector<std::byte>& b, std::uint32_t v) {
    for (int i = 0; i < 4; ++i) b.push_back(std::byte((v >> (8 * i)) & 0xff));
}

// A v1.x header: the magic, the version and, for 1.1, the three block flags.
std::vector<std::byte> v1_header(int minor, block_flags blocks = {true, true, true}) {
    std::vector<std::byte> b;
    put_u32(b, static_cast<std::uint32_t>(file_magic));
    put_u32(b, static_cast<std::uint32_t>(file_magic >> 32));
    put_u32(b, 1);
    put_u32(b, static_cast<std::uint32_t>(minor));
    if (minor == 1) {
        for (bool f : {blocks.camera, blocks.hands, blocks.gaze}) b.push_back(std::byte(f ? 1 : 0));
    }
    return b;
}

// The first bytes of a 2019 file: its first curve's two wrap modes.
std::vector<std::byte> no_magic() {
    std::vector<std::byte> b;
    put_u32(b, 8);
    put_u32(b, 2);
    return b;
}

layout_candidates of(const std::vector<std::byte>& bytes, layout_choice c) {
    return candidates(bytes.data(), bytes.size(), c);
}

struct expected {
    edition ed;
    layout lay;
    std::uint8_t bool_key_size;
    std::uint64_t first_curve;
};

void expect_candidates(const layout_candidates& c, std::vector<expected> e, bool detecting) {
    ASSERT_EQ(std::size_t{c.count}, e.size());
    EXPECT_EQ(c.detecting, detecting);
    for (std::size_t i = 0; i < e.size(); ++i) {
        SCOPED_TRACE(i);
        EXPECT_EQ(c.starts[i].header.edition, e[i].ed);
        EXPECT_EQ(c.starts[i].header.layout, e[i].lay);
        EXPECT_EQ(c.starts[i].header.bool_key_size, e[i].bool_key_size);
        EXPECT_EQ(c.starts[i].first_curve, e[i].first_curve);
    }
}

constexpr std::uint8_t bool8 = bool_keyframe_size;
constexpr std::uint8_t bool28 = full_keyframe_size;

TEST(LayoutCandidates, AV11FileUnderAutomaticTriesCompactThenFull) {
    const layout_candidates c = of(v1_header(1), layout_choice::automatic);
    expect_candidates(
        c, {{edition::v1, layout::compact, bool8, 19}, {edition::v1, layout::full, bool8, 19}},
        false);
    EXPECT_EQ(c.starts[0].header.major, 1);
    EXPECT_EQ(c.starts[0].header.minor, 1);
    EXPECT_EQ(std::size_t{c.starts[0].header.curve_count},
              curve_count(block_flags{true, true, true}));
}

TEST(LayoutCandidates, AV11FileUnderAFixedLayoutTriesThatLayoutAlone) {
    expect_candidates(of(v1_header(1), layout_choice::compact),
                      {{edition::v1, layout::compact, bool8, 19}}, false);
    expect_candidates(of(v1_header(1), layout_choice::full),
                      {{edition::v1, layout::full, bool8, 19}}, false);
}

TEST(LayoutCandidates, AV10FileIsFullWhateverTheV1Choice) {
    for (layout_choice lc :
         {layout_choice::automatic, layout_choice::compact, layout_choice::full}) {
        expect_candidates(of(v1_header(0), lc), {{edition::v1, layout::full, bool8, 16}}, false);
    }
}

TEST(LayoutCandidates, TheBlockFlagsSetTheCurveCount) {
    const block_flags camera_only{true, false, false};
    const layout_candidates c = of(v1_header(1, camera_only), layout_choice::automatic);
    ASSERT_EQ(c.count, 2);
    EXPECT_EQ(c.starts[1].header.blocks.hands, false);
    EXPECT_EQ(std::size_t{c.starts[1].header.curve_count}, curve_count(camera_only));
}

TEST(LayoutCandidates, A2019LayoutByNameIsTriedWhateverTheFirstBytes) {
    for (const std::vector<std::byte>& bytes :
         {v1_header(1), no_magic(), std::vector<std::byte>{}}) {
        expect_candidates(of(bytes, layout_choice::june_2019),
                          {{edition::june_2019, layout::full, bool8, 0}}, false);
        expect_candidates(of(bytes, layout_choice::may_2019),
                          {{edition::may_2019, layout::full, bool8, 0},
                           {edition::may_2019, layout::full, bool28, 0}},
                          false);
    }
}

TEST(LayoutCandidates, AFileWithoutTheMagicUnderAutomaticIsDetectedAsJuneThenMayByBoolKeySize) {
    expect_candidates(of(no_magic(), layout_choice::automatic),
                      {{edition::june_2019, layout::full, bool8, 0},
                       {edition::may_2019, layout::full, bool8, 0},
                       {edition::may_2019, layout::full, bool28, 0}},
                      true);
    EXPECT_TRUE(may_be_2019(no_magic().data(), 8));
}

TEST(LayoutCandidates, NoneWhileTheHeaderIsNotWholeOrWhenItIsWrong) {
    const std::vector<std::byte> whole = v1_header(1);
    EXPECT_EQ(candidates(whole.data(), 18, layout_choice::automatic).count, 0);
    EXPECT_EQ(candidates(whole.data(), 7, layout_choice::automatic).count, 0);
    // Without the magic, a fixed v1 layout detects nothing.
    EXPECT_EQ(of(no_magic(), layout_choice::compact).count, 0);
    std::vector<std::byte> bad_wrap = no_magic();
    bad_wrap[0] = std::byte{3};
    EXPECT_EQ(of(bad_wrap, layout_choice::automatic).count, 0);
    EXPECT_FALSE(may_be_2019(bad_wrap.data(), 8));
    EXPECT_FALSE(may_be_2019(no_magic().data(), 7));
}

TEST(LayoutCandidates, EachCandidateIsReadAgainByTheChoiceOfItsHeader) {
    for (layout_choice lc : {layout_choice::automatic, layout_choice::compact, layout_choice::full,
                             layout_choice::june_2019, layout_choice::may_2019}) {
        for (const std::vector<std::byte>& bytes : {v1_header(0), v1_header(1), no_magic()}) {
            const layout_candidates c = of(bytes, lc);
            for (std::size_t i = 0; i < c.count; ++i) {
                const layout_candidates again = of(bytes, choice_reading(c.starts[i].header));
                ASSERT_GT(again.count, 0);
                EXPECT_FALSE(again.detecting);
                EXPECT_EQ(again.starts[0].header.edition, c.starts[i].header.edition);
                EXPECT_EQ(again.starts[0].header.layout, c.starts[i].header.layout);
            }
        }
    }
}

error ended_at(std::uint64_t offset, errc code = errc::truncated) {
    return error{code, offset, error_place::curve};
}

// choose_walk over walks that ended with `ends`, recording which it asked about.
std::size_t choose(const std::vector<error>& ends, bool detecting,
                   std::vector<std::size_t>* asked) {
    return choose_walk(ends.size(), detecting, [&](std::size_t i) {
        asked->push_back(i);
        return ends[i];
    });
}

TEST(ChooseWalk, TheFirstSoundWalkWinsAndTheRestAreNotWalked) {
    std::vector<std::size_t> asked;
    EXPECT_EQ(choose({ended_at(10), error{}, error{}}, false, &asked), 1u);
    EXPECT_EQ(asked, (std::vector<std::size_t>{0, 1}));
}

TEST(ChooseWalk, AWalkStoppedByALimitCountsAsSound) {
    std::vector<std::size_t> asked;
    EXPECT_EQ(choose({ended_at(50), ended_at(5, errc::limit_exceeded)}, false, &asked), 1u);
    EXPECT_TRUE(sound_walk(ended_at(5, errc::limit_exceeded)));
    EXPECT_FALSE(sound_walk(ended_at(5)));
}

TEST(ChooseWalk, WithoutASoundWalkTheOneThatGotFurthestWinsTheEarlierOnATie) {
    std::vector<std::size_t> asked;
    EXPECT_EQ(choose({ended_at(10), ended_at(30), ended_at(20)}, false, &asked), 1u);
    EXPECT_EQ(choose({ended_at(30), ended_at(30)}, false, &asked), 0u);
    EXPECT_EQ(choose({ended_at(10), ended_at(11)}, false, &asked), 1u);
    EXPECT_EQ(choose({ended_at(12), ended_at(11)}, false, &asked), 0u);
}

TEST(ChooseWalk, DetectingWithoutASoundWalkChoosesNone) {
    std::vector<std::size_t> asked;
    EXPECT_EQ(choose({ended_at(10), ended_at(30), ended_at(20)}, true, &asked), 3u);
    asked.clear();
    EXPECT_EQ(choose({ended_at(10), error{}, ended_at(20)}, true, &asked), 1u);
    EXPECT_EQ(asked, (std::vector<std::size_t>{0, 1}));
}

TEST(ChooseWalk, ALoneCandidateIsTheChoiceWithoutAWalk) {
    std::vector<std::size_t> asked;
    EXPECT_EQ(choose({ended_at(10)}, false, &asked), 0u);
    EXPECT_TRUE(asked.empty());
    // Detecting, even one candidate has to be sound.
    EXPECT_EQ(choose({ended_at(10)}, true, &asked), 1u);
    EXPECT_EQ(choose({}, false, &asked), 0u);
}

TEST(FirstSound, TakesTheFirstSoundCandidateInOrderAndWalksNoFurther) {
    layout_candidates c = of(v1_header(1), layout_choice::automatic);
    std::vector<std::size_t> asked;
    const auto walked = [&](std::array<bool, 2> sound) {
        asked.clear();
        return first_sound(c, [&](std::size_t i) {
            asked.push_back(i);
            return sound[i];
        });
    };
    EXPECT_EQ(walked({true, true}), 0u);
    EXPECT_EQ(asked, (std::vector<std::size_t>{0}));
    EXPECT_EQ(walked({false, true}), 1u);
    EXPECT_EQ(walked({false, false}), 2u);
    EXPECT_EQ(asked, (std::vector<std::size_t>{0, 1}));
}

TEST(WalkNext, GoesOnWhileNoWalkWasSoundAndThereIsAnother) {
    const layout_candidates c = of(v1_header(1), layout_choice::automatic);
    EXPECT_TRUE(walk_next(c, 1, ended_at(10)));
    EXPECT_FALSE(walk_next(c, 1, error{}));
    EXPECT_FALSE(walk_next(c, 1, ended_at(10, errc::limit_exceeded)));
    EXPECT_FALSE(walk_next(c, 2, ended_at(10)));
}

TEST(WalkDecided, KnownOnceEveryWalkBeforeTheFirstSoundOneHasFailed) {
    const auto decided = [](std::vector<bool> failed, std::vector<error> ends) {
        return walk_decided(
            failed.size(), [&](std::size_t i) { return bool(failed[i]); },
            [&](std::size_t i) { return ends[i]; });
    };
    // A walk under way may still end sound, and would then win.
    EXPECT_FALSE(decided({false, true}, {error{}, ended_at(4)}));
    EXPECT_FALSE(decided({true, false}, {ended_at(4), error{}}));
    // Every walk failed: the furthest wins, whatever comes.
    EXPECT_TRUE(decided({true, true}, {ended_at(4), ended_at(9)}));
    // A limit ahead of every walk still under way counts as sound.
    EXPECT_TRUE(decided({true, false}, {ended_at(4, errc::limit_exceeded), error{}}));
    EXPECT_TRUE(
        decided({true, true, false}, {ended_at(4), ended_at(4, errc::limit_exceeded), error{}}));
}

TEST(CurveOfWalk, GivesEachCurvesIdKindAndStrideUnderTheHeader) {
    const layout_candidates v11 = of(v1_header(1), layout_choice::automatic);
    const file_header& compact = v11.starts[0].header;
    const file_header& full = v11.starts[1].header;
    for (std::size_t i = 0; i < compact.curve_count; ++i) {
        const walk_curve c = curve_of_walk(compact, i);
        EXPECT_EQ(c.id, curve_at(compact.blocks, i));
        EXPECT_EQ(c.kind, kind_of(c.id));
        EXPECT_EQ(std::size_t{c.stride}, compact_keyframe_size);
        const walk_curve f = curve_of_walk(full, i);
        EXPECT_EQ(std::size_t{f.stride},
                  f.kind == curve_kind::bool_curve ? bool_keyframe_size : full_keyframe_size);
    }
    const layout_candidates may = of(no_magic(), layout_choice::may_2019);
    bool saw_bool = false;
    for (std::size_t i = 0; i < may.starts[1].header.curve_count; ++i) {
        const walk_curve c = curve_of_walk(may.starts[1].header, i);
        EXPECT_EQ(c.id, may_2019_curve_at(i));
        EXPECT_EQ(std::size_t{c.stride}, full_keyframe_size);
        saw_bool = saw_bool || c.kind == curve_kind::bool_curve;
    }
    EXPECT_TRUE(saw_bool);
    EXPECT_TRUE(ends_with_trailer(may.starts[0].header));
    EXPECT_FALSE(ends_with_trailer(compact));
    EXPECT_FALSE(ends_with_trailer(of(no_magic(), layout_choice::june_2019).starts[0].header));
}

TEST(StepCurve, ReadsACurveHeaderAndItsKeysFitOrSaysWhereTheBytesRanOut) {
    std::vector<std::byte> b;
    put_u32(b, 8);
    put_u32(b, 8);
    put_u32(b, 2);  // two keys
    b.resize(b.size() + 2 * 8);
    const curve_step whole = step_curve(b.data(), b.size(), 8, limits{}, 0);
    EXPECT_FALSE(whole.error);
    EXPECT_EQ(whole.keys, 2u);
    EXPECT_EQ(whole.size, 12u + 16u);

    const curve_step short_keys = step_curve(b.data(), b.size() - 1, 8, limits{}, 0);
    EXPECT_EQ(short_keys.error.code, errc::truncated);
    EXPECT_EQ(short_keys.error.offset, curve_header_size);
    EXPECT_EQ(short_keys.index, 0);

    const curve_step short_header = step_curve(b.data(), 11, 8, limits{}, 0);
    EXPECT_EQ(short_header.error.code, errc::truncated);
    EXPECT_EQ(short_header.error.offset, 0u);
    EXPECT_EQ(short_header.index, -1);

    limits two_in_all;
    two_in_all.max_total_keyframes = 2;
    const curve_step over = step_curve(b.data(), b.size(), 8, two_in_all, 1);
    EXPECT_EQ(over.error.code, errc::limit_exceeded);
    EXPECT_EQ(over.error.limit, limit_kind::total_keyframes);
    EXPECT_EQ(over.error.offset, 8u);
}

}  // namespace

TEST(EndsAfterCurves, AFileWithoutAMarkerListEndsRightAfterItsLastCurveUnlessATrailerFollows) {
    const file_header compact = of(v1_header(1), layout_choice::automatic).starts[0].header;
    EXPECT_TRUE(ends_after_curves(compact, 0));
    EXPECT_FALSE(ends_after_curves(compact, 1));
    EXPECT_FALSE(ends_after_curves(compact, 3));
    const layout_candidates may = of(no_magic(), layout_choice::may_2019);
    EXPECT_FALSE(ends_after_curves(may.starts[0].header, 0));
}

TEST(CheckCurveCount, FramesACurveWhateverItsWrapModes) {
    std::vector<std::byte> b;
    put_u32(b, 99);  // no wrap mode
    put_u32(b, 8);
    put_u32(b, 3);
    EXPECT_FALSE(check_curve_count(b.data(), limits{}, 0));
    EXPECT_EQ(check_curve_header(b.data(), limits{}, 0).code, errc::bad_wrap_mode);
    b[8] = std::byte{0xff};
    b[11] = std::byte{0xff};
    const fault negative = check_curve_count(b.data(), limits{}, 0);
    EXPECT_EQ(negative.code, errc::negative_count);
    EXPECT_EQ(negative.offset, 8u);
}

TEST(EncodeHeader, WritesTheMagicTheVersionAndTheV11FlagsAsTheHeaderRuleReadsThem) {
    for (const int minor : {0, 1}) {
        SCOPED_TRACE(minor);
        const block_flags blocks{true, false, true};
        const encoded_header e =
            encode_header(detail::v1_header(1, minor, layout::compact, blocks));
        EXPECT_EQ(std::vector<std::byte>(e.bytes.begin(), e.bytes.begin() + e.size),
                  ::v1_header(minor, blocks));
        const header_check h = check_header(e.bytes.data(), e.size);
        ASSERT_TRUE(h.whole());
        EXPECT_EQ(h.size, e.size);
        EXPECT_EQ(h.minor, minor);
    }
}

TEST(WrittenKeys, StrideFullFloatKeysAndNarrowingFollowTheHeader) {
    const file_header compact = detail::v1_header(1, 1, layout::compact, {true, true, true});
    const file_header full = detail::v1_header(1, 1, layout::full, {true, true, true});
    const file_header v10 = detail::v1_header(1, 0, layout::compact, {});
    const curve_id position = camera_curve(pose_channel::position_x);
    const curve_id pinching = hand_state_curve(hand_state::left_pinching);
    EXPECT_EQ(std::size_t{stride_of(compact, position)}, compact_keyframe_size);
    EXPECT_EQ(std::size_t{stride_of(full, position)}, full_keyframe_size);
    EXPECT_EQ(std::size_t{stride_of(v10, position)}, full_keyframe_size);
    EXPECT_EQ(std::size_t{stride_of(full, pinching)}, bool_keyframe_size);
    EXPECT_FALSE(full_float_keys(compact));
    EXPECT_TRUE(full_float_keys(full));
    EXPECT_TRUE(full_float_keys(v10));
    EXPECT_TRUE(narrowing_drops_shape(curve_kind::float_curve, full_keyframe_size, compact));
    EXPECT_FALSE(narrowing_drops_shape(curve_kind::float_curve, full_keyframe_size, full));
    EXPECT_FALSE(narrowing_drops_shape(curve_kind::float_curve, compact_keyframe_size, compact));
    // May 2019's 28-byte bool keys hold nothing but a time and a value.
    EXPECT_FALSE(narrowing_drops_shape(curve_kind::bool_curve, full_keyframe_size, compact));
}

TEST(ConversionOptions, LayoutsAndShiftsPastTheLargestFloat) {
    EXPECT_TRUE(known_layout(layout::compact));
    EXPECT_TRUE(known_layout(layout::full));
    EXPECT_FALSE(known_layout(static_cast<layout>(7)));
    constexpr float inf = std::numeric_limits<float>::infinity();
    constexpr float max = std::numeric_limits<float>::max();
    EXPECT_TRUE(shift_overflows(max, max - -max));
    EXPECT_FALSE(shift_overflows(max, max - 1.0f));
    // A time that was not finite before the shift stays what it was.
    EXPECT_FALSE(shift_overflows(inf, inf));
}
