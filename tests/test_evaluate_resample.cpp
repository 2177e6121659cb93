// resampler: curve selection, the time grid, and rows that equal evaluate().
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <limits>
#include <string_view>
#include <system_error>
#include <vector>

#include "support/builders.hpp"

using namespace inputanim;
using namespace inputanim::testing;

namespace {

struct opened {
    explicit opened(const model& m) : data(write(m)) { error = rec.open(view(data)); }
    opened(const opened&) = delete;
    opened& operator=(const opened&) = delete;
    bytes data;
    recording rec;
    inputanim::error error;
};

// Left joints' positions move linearly from 0.5 s to 2.5 s; the camera from 0 s to 1 s.
model moving_model(shape s) {
    model m = empty_model(s);
    for (std::size_t j = 0; j < joint_count; ++j) {
        for (pose_channel c :
             {pose_channel::position_x, pose_channel::position_y, pose_channel::position_z}) {
            const auto base = static_cast<float>(j * 10 + static_cast<std::size_t>(c));
            m[joint_curve(side::left, static_cast<joint>(j), c)].keys = {{0.5f, base},
                                                                         {2.5f, base + 2.0f}};
        }
    }
    m[camera_curve(pose_channel::rotation_w)].keys = {{0.0f, 1.0f}, {1.0f, 0.0f}};
    m[hand_state_curve(hand_state::left_tracked)].keys = {{0.0f, 0.0f}, {0.75f, 1.0f}};
    return m;
}

bool same_bits(float a, float b) {
    return std::bit_cast<std::uint32_t>(a) == std::bit_cast<std::uint32_t>(b);
}

}  // namespace

TEST(ResampleSelect, NothingIsSelectedAtFirst) {
    const opened o(moving_model(shape::v11_compact));
    const resampler rs(o.rec);
    EXPECT_TRUE(rs.curves().empty());
}

TEST(ResampleSelect, SelectAllTakesEveryCurveOfTheFileInFileOrder) {
    for (shape s : all_shapes) {
        const opened o(moving_model(s));
        resampler rs(o.rec);
        rs.select_all();
        ASSERT_EQ(rs.curves().size(), o.rec.curves().size()) << shape_name(s);
        for (std::size_t i = 0; i < rs.curves().size(); ++i) {
            EXPECT_EQ(rs.curves()[i], o.rec.curves()[i].id);
        }
    }
}

TEST(ResampleSelect, AGlobSelectsTheMatchingCurvesInFileOrder) {
    const opened o(moving_model(shape::v11_compact));
    resampler rs(o.rec);
    EXPECT_EQ(rs.select("hand.left.joint.*.position.*"), joint_count * 3);
    ASSERT_EQ(rs.curves().size(), joint_count * 3);
    EXPECT_EQ(rs.curves()[0], joint_curve(side::left, joint::none, pose_channel::position_x));
    EXPECT_EQ(rs.curves()[4], joint_curve(side::left, joint::wrist, pose_channel::position_y));
    EXPECT_EQ(rs.curves().back(),
              joint_curve(side::left, joint::pinky_tip, pose_channel::position_z));
}

TEST(ResampleSelect, SeveralGlobsAddUpWithoutDuplicatesAndKeepFileOrder) {
    const opened o(moving_model(shape::v11_compact));
    resampler rs(o.rec);
    EXPECT_EQ(rs.select("gaze.direction.*"), 3u);
    EXPECT_EQ(rs.select("camera.**"), 7u);
    EXPECT_EQ(rs.select("camera.rotation.?"), 4u);  // already selected: counted, not repeated
    ASSERT_EQ(rs.curves().size(), 10u);
    EXPECT_EQ(rs.curves()[0], camera_curve(pose_channel::position_x));
    EXPECT_EQ(rs.curves()[7], gaze_curve(ray_channel::direction_x));
}

TEST(ResampleSelect, AGlobMatchingOnlyCurvesTheFileLacksSelectsNothing) {
    const opened o(moving_model(shape::v10));
    resampler rs(o.rec);
    EXPECT_EQ(rs.select("gaze.**"), 0u);
    EXPECT_TRUE(rs.curves().empty());
}

TEST(ResampleGrid, SamplesFromTheFirstKeyToTheDurationInclusive) {
    const opened o(moving_model(shape::v11_compact));
    resampler rs(o.rec);
    // First key 0 s, duration 2.5 s: 0, 0.25, ..., 2.5.
    ASSERT_EQ(rs.set_grid(4.0), grid_error::none);
    EXPECT_EQ(rs.row_count(), 11u);
    EXPECT_EQ(rs.row_time(0), 0.0f);
    EXPECT_EQ(rs.row_time(10), 2.5f);
}

TEST(ResampleGrid, FromAndToOverrideTheRecordingsRange) {
    const opened o(moving_model(shape::v11_compact));
    resampler rs(o.rec);
    ASSERT_EQ(rs.set_grid(60.0, -1.0, 1.0), grid_error::none);
    EXPECT_EQ(rs.row_count(), 121u);
    EXPECT_EQ(rs.row_time(0), -1.0f);
    EXPECT_EQ(rs.row_time(60), 0.0f);
    EXPECT_EQ(rs.row_time(120), 1.0f);
}

TEST(ResampleGrid, RowTimesAreComputedWithoutDrift) {
    const opened o(moving_model(shape::v11_compact));
    resampler rs(o.rec);
    ASSERT_EQ(rs.set_grid(60.0, 0.0, 600.0), grid_error::none);
    EXPECT_EQ(rs.row_count(), 36001u);
    for (std::uint64_t i = 0; i < rs.row_count(); i += 997) {
        EXPECT_EQ(rs.row_time(i), static_cast<float>(static_cast<double>(i) / 60.0)) << i;
    }
    EXPECT_EQ(rs.row_time(36000), 600.0f);
}

TEST(ResampleGrid, ADecimalRangeKeepsItsEnd) {
    const opened o(moving_model(shape::v11_compact));
    resampler rs(o.rec);
    ASSERT_EQ(rs.set_grid(10.0, 0.1, 0.3), grid_error::none);
    EXPECT_EQ(rs.row_count(), 3u);
    EXPECT_EQ(rs.row_time(2), 0.3f);
    // Not more than that: 0.3 + a hundredth of a step is still before the fourth row.
    ASSERT_EQ(rs.set_grid(10.0, 0.1, 0.301), grid_error::none);
    EXPECT_EQ(rs.row_count(), 3u);
}

TEST(ResampleGrid, AnEndBeforeTheStartGivesNoRows) {
    const opened o(moving_model(shape::v11_compact));
    resampler rs(o.rec);
    rs.select_all();
    ASSERT_EQ(rs.set_grid(60.0, 2.0, 1.0), grid_error::none);
    EXPECT_EQ(rs.row_count(), 0u);
    std::vector<float> row(rs.curves().size());
    EXPECT_FALSE(rs.next(row));
}

TEST(ResampleGrid, ASingleInstantGivesOneRow) {
    const opened o(moving_model(shape::v11_compact));
    resampler rs(o.rec);
    ASSERT_EQ(rs.set_grid(60.0, 1.0, 1.0), grid_error::none);
    EXPECT_EQ(rs.row_count(), 1u);
}

TEST(ResampleGrid, BadRatesAreRefused) {
    const opened o(moving_model(shape::v11_compact));
    resampler rs(o.rec);
    for (double rate : {0.0, -60.0, std::numeric_limits<double>::quiet_NaN(),
                        std::numeric_limits<double>::infinity()}) {
        EXPECT_EQ(rs.set_grid(rate), grid_error::bad_rate) << rate;
        EXPECT_EQ(rs.row_count(), 0u);
    }
    EXPECT_EQ(grid_error_name(grid_error::bad_rate), "bad_rate");
}

TEST(ResampleGrid, GridErrorsAreErrorCodesOfTheirOwnCategory) {
    const std::error_code none = grid_error::none;
    EXPECT_FALSE(none);
    for (const grid_error e : {grid_error::bad_rate, grid_error::bad_time, grid_error::no_keys,
                               grid_error::too_many_rows}) {
        const std::error_code ec = e;
        EXPECT_TRUE(ec) << grid_error_name(e);
        EXPECT_EQ(ec, e);
        EXPECT_EQ(&ec.category(), &grid_error_category());
        EXPECT_STREQ(ec.category().name(), "inputanim.grid");
        EXPECT_FALSE(ec.message().empty());
    }
    EXPECT_EQ(std::error_code(grid_error::bad_rate).message(),
              "the rate is not a positive finite number");
    EXPECT_NE(std::error_code(grid_error::bad_rate), std::error_code(errc::truncated));
}

TEST(ResampleGrid, BadTimesAreRefused) {
    const opened o(moving_model(shape::v11_compact));
    resampler rs(o.rec);
    EXPECT_EQ(rs.set_grid(60.0, std::numeric_limits<double>::quiet_NaN()), grid_error::bad_time);
    EXPECT_EQ(rs.set_grid(60.0, 0.0, std::numeric_limits<double>::infinity()),
              grid_error::bad_time);
    EXPECT_EQ(rs.set_grid(60.0, -1e39), grid_error::bad_time);
    EXPECT_EQ(grid_error_name(grid_error::bad_time), "bad_time");
}

TEST(ResampleGrid, ARecordingWithoutKeysNeedsBothEnds) {
    const opened o(empty_model(shape::v11_compact));
    resampler rs(o.rec);
    rs.select_all();
    EXPECT_EQ(rs.set_grid(60.0), grid_error::no_keys);
    EXPECT_EQ(rs.set_grid(60.0, 0.0), grid_error::no_keys);
    ASSERT_EQ(rs.set_grid(60.0, 0.0, 1.0), grid_error::none);
    std::vector<float> row(rs.curves().size(), 1.0f);
    ASSERT_TRUE(rs.next(row));
    for (float v : row) EXPECT_EQ(v, 0.0f);
    EXPECT_EQ(grid_error_name(grid_error::no_keys), "no_keys");
}

TEST(ResampleGrid, MoreRowsThanDoublesCountExactlyAreRefused) {
    const opened o(moving_model(shape::v11_compact));
    resampler rs(o.rec);
    EXPECT_EQ(rs.set_grid(1e300, 0.0, 1.0), grid_error::too_many_rows);
    EXPECT_EQ(rs.row_count(), 0u);
    EXPECT_EQ(grid_error_name(grid_error::too_many_rows), "too_many_rows");
}

TEST(ResampleRows, EachRowHoldsEvaluateAtTheRowTime) {
    for (shape s : all_shapes) {
        const opened o(moving_model(s));
        resampler rs(o.rec);
        rs.select_all();
        ASSERT_EQ(rs.set_grid(30.0, -0.5, 3.0), grid_error::none);
        std::vector<float> row(rs.curves().size());
        std::uint64_t rows = 0;
        while (const auto t = rs.next(row)) {
            EXPECT_EQ(*t, rs.row_time(rows));
            for (std::size_t i = 0; i < row.size(); ++i) {
                const float expected = evaluate(*o.rec.find(rs.curves()[i]), *t);
                ASSERT_TRUE(same_bits(row[i], expected))
                    << shape_name(s) << " " << curve_path(rs.curves()[i]) << " t " << *t;
            }
            ++rows;
            EXPECT_EQ(rs.position(), rows);
        }
        EXPECT_EQ(rows, rs.row_count());
        EXPECT_EQ(rows, 106u);
    }
}

TEST(ResampleRows, ValuesFollowTheCurves) {
    const opened o(moving_model(shape::v11_compact));
    resampler rs(o.rec);
    rs.select("hand.left.joint.Wrist.position.x");
    rs.select("hand.left.tracked");
    ASSERT_EQ(rs.set_grid(2.0, 0.0, 1.5), grid_error::none);
    std::vector<float> row(2);
    const float wrist[] = {10.0f, 10.0f, 10.5f, 11.0f};  // 10 + (t - 0.5), held before 0.5
    const float tracked[] = {0.0f, 0.0f, 1.0f, 1.0f};
    for (int i = 0; i < 4; ++i) {
        const auto t = rs.next(row);
        ASSERT_TRUE(t);
        EXPECT_EQ(*t, 0.5f * static_cast<float>(i));
        EXPECT_EQ(row[0], tracked[i]) << i;  // hand states come first in file order
        EXPECT_EQ(row[1], wrist[i]) << i;
    }
    EXPECT_FALSE(rs.next(row));
}

TEST(ResampleRows, AShortRowBufferIsRefusedWithoutAdvancing) {
    const opened o(moving_model(shape::v11_compact));
    resampler rs(o.rec);
    rs.select("camera.*.*");
    ASSERT_EQ(rs.set_grid(10.0), grid_error::none);
    std::vector<float> row(6);
    EXPECT_FALSE(rs.next(row));
    EXPECT_EQ(rs.position(), 0u);
    row.resize(7);
    EXPECT_TRUE(rs.next(row));
    EXPECT_EQ(rs.position(), 1u);
}

TEST(ResampleRows, RewindStartsAgainWithTheSameValues) {
    const opened o(moving_model(shape::v11_compact));
    resampler rs(o.rec);
    rs.select_all();
    ASSERT_EQ(rs.set_grid(7.0), grid_error::none);
    std::vector<float> first(rs.curves().size());
    std::vector<float> again(rs.curves().size());
    std::vector<std::vector<float>> pass;
    while (rs.next(first)) pass.push_back(first);
    rs.rewind();
    EXPECT_EQ(rs.position(), 0u);
    for (const auto& expected : pass) {
        ASSERT_TRUE(rs.next(again));
        EXPECT_EQ(again, expected);
    }
    EXPECT_FALSE(rs.next(again));
}
