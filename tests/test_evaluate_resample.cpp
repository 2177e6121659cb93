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

TEST(ResampleSelect, CurvesNamedByIdAreAddedInFileOrderWhenTheFileHoldsThem) {
    const opened o(moving_model(shape::v10));
    resampler rs(o.rec);
    // Given out of file order, one twice, and one the v1.0 file lacks.
    const curve_id ids[] = {
        gaze_curve(ray_channel::origin_x), camera_curve(pose_channel::rotation_w),
        camera_curve(pose_channel::position_x), camera_curve(pose_channel::rotation_w)};
    EXPECT_EQ(rs.select(ids), 3u);
    ASSERT_EQ(rs.curves().size(), 2u);
    EXPECT_EQ(rs.curves()[0], camera_curve(pose_channel::position_x));
    EXPECT_EQ(rs.curves()[1], camera_curve(pose_channel::rotation_w));
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
              "the rate is not a positive finite number with a finite step 1 / rate");
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

TEST(ResampleGrid, MorePointsThanDoublesTellApartAreRefused) {
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

namespace {

// The distinct float times of the grid's points, found by going through every point: what the
// resampler must produce without doing so.
std::vector<float> distinct_times_by_brute_force(double from, double to, double rate,
                                                 std::uint64_t points) {
    std::vector<float> times;
    for (std::uint64_t i = 0; i < points; ++i) {
        const auto t = static_cast<float>(std::min(from + static_cast<double>(i) / rate, to));
        if (times.empty() || t != times.back()) times.push_back(t);
    }
    return times;
}

}  // namespace

TEST(ResampleGrid, AnInstantFarFromZeroIsOneRowAndEndsAtOnce) {
    const opened o(moving_model(shape::v11_compact));
    resampler rs(o.rec);
    rs.select_all();
    // At 1e30 a step of 1/60 does not change a double: a grid walked by adding steps never ends.
    for (const double t : {1e30, 1e20, -3e38, 3.4028234663852886e38}) {
        ASSERT_EQ(rs.set_grid(60.0, t, t), grid_error::none) << t;
        EXPECT_EQ(rs.point_count(), 1u) << t;
        EXPECT_EQ(rs.row_count(), 1u) << t;
        std::vector<float> row(rs.curves().size());
        ASSERT_TRUE(rs.next(row));
        EXPECT_FALSE(rs.next(row));
    }
}

TEST(ResampleGrid, PointsThatShareAFloatTimeAreOneRow) {
    const opened o(moving_model(shape::v11_compact));
    resampler rs(o.rec);
    // Floats near 1e20 are 2^43 (8.8e12) apart: 1e14 + 1 points at 1 Hz hit every float from
    // float(1e20) to float(1e20 + 1e14), each once.
    const double from = 1e20;
    const double to = 1e20 + 1e14;
    ASSERT_EQ(rs.set_grid(1.0, from, to), grid_error::none);
    EXPECT_EQ(rs.point_count(), 100000000000001u);
    const auto first = std::bit_cast<std::uint32_t>(static_cast<float>(from));
    const auto last = std::bit_cast<std::uint32_t>(static_cast<float>(to));
    ASSERT_EQ(rs.row_count(), last - first + 1u);
    std::vector<float> row;
    for (std::uint32_t bits = first; bits <= last; ++bits) {
        const auto t = rs.next(row);
        ASSERT_TRUE(t);
        EXPECT_EQ(std::bit_cast<std::uint32_t>(*t), bits);
    }
    EXPECT_FALSE(rs.next(row));
}

TEST(ResampleGrid, RowsAreTheDistinctFloatTimesOfThePoints) {
    const opened o(moving_model(shape::v11_compact));
    resampler rs(o.rec);
    rs.select("camera.**");
    struct grid {
        double from, to, rate;
    };
    // Steps below the float spacing, across a change of spacing (2^24, 1), across zero, and
    // steps just above and below one spacing, where some points share a time and others do not.
    for (const grid g :
         {grid{16777216.0 - 100.0, 16777216.0 + 300.0, 3.0}, grid{1.0 - 1e-4, 1.0 + 1e-4, 1e10},
          grid{-2e-4, 1e-4, 3e8}, grid{1e6, 1e6 + 1.0, 16.5}, grid{1e6, 1e6 + 1.0, 15.5},
          grid{-3e7, -3e7 + 500.0, 0.7}}) {
        ASSERT_EQ(rs.set_grid(g.rate, g.from, g.to), grid_error::none) << g.from;
        const std::vector<float> expected =
            distinct_times_by_brute_force(g.from, g.to, g.rate, rs.point_count());
        ASSERT_EQ(rs.row_count(), expected.size()) << g.from << " " << g.rate;
        std::vector<float> row(rs.curves().size());
        for (std::size_t k = 0; k < expected.size(); ++k) {
            const auto t = rs.next(row);
            ASSERT_TRUE(t);
            ASSERT_EQ(*t, expected[k]) << g.from << " row " << k;
            EXPECT_EQ(rs.position(), k + 1);
            if (k % 97 == 0) {
                EXPECT_EQ(rs.row_time(k), expected[k]) << g.from << " row " << k;
            }
            for (std::size_t c = 0; c < row.size(); ++c) {
                ASSERT_TRUE(same_bits(row[c], evaluate(*o.rec.find(rs.curves()[c]), *t)));
            }
        }
        EXPECT_FALSE(rs.next(row));
    }
}

TEST(ResampleGrid, ACeilingRefusesLargerGridsBeforeAnyRow) {
    const opened o(moving_model(shape::v11_compact));
    resampler rs(o.rec);
    // Every point its own row: 11 rows from 0 to 2.5 at 4 Hz.
    EXPECT_EQ(rs.set_grid(4.0, std::nullopt, std::nullopt, 11), grid_error::none);
    EXPECT_EQ(rs.row_count(), 11u);
    EXPECT_EQ(rs.set_grid(4.0, std::nullopt, std::nullopt, 10), grid_error::too_many_rows);
    EXPECT_EQ(rs.row_count(), 0u);
    EXPECT_EQ(rs.point_count(), 11u);
    // 2.5e12 points sharing about a billion float times: refused after counting just past the
    // ceiling, not after a billion rows.
    EXPECT_EQ(rs.set_grid(1e12, std::nullopt, std::nullopt, 10000), grid_error::too_many_rows);
    EXPECT_EQ(rs.point_count(), 2500000000001u);
    EXPECT_EQ(rs.row_count(), 0u);
    // Points sharing times: the ceiling counts rows, not points.
    ASSERT_EQ(rs.set_grid(1e10, 1.0 - 1e-4, 1.0 + 1e-4), grid_error::none);
    const std::uint64_t rows = rs.row_count();
    EXPECT_LT(rows, rs.point_count());
    EXPECT_EQ(rs.set_grid(1e10, 1.0 - 1e-4, 1.0 + 1e-4, rows), grid_error::none);
    EXPECT_EQ(rs.set_grid(1e10, 1.0 - 1e-4, 1.0 + 1e-4, rows - 1), grid_error::too_many_rows);
}

TEST(ResampleGrid, ARefusedGridSaysItsRowsWhenEveryPointIsOneAndItsPointTimes) {
    const opened o(moving_model(shape::v11_compact));
    resampler rs(o.rec);
    ASSERT_EQ(rs.set_grid(4.0, std::nullopt, std::nullopt, 10), grid_error::too_many_rows);
    EXPECT_EQ(rs.refused_rows(), 11u);
    EXPECT_EQ(rs.point_time(0), 0.0f);
    EXPECT_EQ(rs.point_time(10), 2.5f);
    // Counted one by one and stopped past the ceiling: unknown.
    ASSERT_EQ(rs.set_grid(1e12, std::nullopt, std::nullopt, 10000), grid_error::too_many_rows);
    EXPECT_EQ(rs.refused_rows(), 0u);
    // A grid that is not refused has none.
    ASSERT_EQ(rs.set_grid(4.0), grid_error::none);
    EXPECT_EQ(rs.refused_rows(), 0u);
    EXPECT_EQ(rs.point_time(3), 0.75f);
}

TEST(ResampleGrid, ARateWhoseStepOverflowsIsRefused) {
    const opened o(moving_model(shape::v11_compact));
    resampler rs(o.rec);
    EXPECT_EQ(rs.set_grid(1e-310, 0.0, 1.0), grid_error::bad_rate);
    ASSERT_EQ(rs.set_grid(1e-300, 0.0, 1.0), grid_error::none);
    EXPECT_EQ(rs.row_count(), 1u);
}

TEST(ResampleGrid, APointPastTheEndByLessThanAMillionthOfAStepIsTheEnd) {
    const opened o(moving_model(shape::v11_compact));
    resampler rs(o.rec);
    // 0.1 + 2 / 10 is 0.30000000000000004 in double; the row is at 0.3 itself.
    ASSERT_EQ(rs.set_grid(10.0, 0.1, 0.3), grid_error::none);
    EXPECT_EQ(rs.row_time(2), 0.3f);
    // The largest float with a huge step: the second point is clamped to the end, not infinity.
    const double top = std::numeric_limits<float>::max();
    ASSERT_EQ(rs.set_grid(1.0 / (2.0 * top) * (1.0 - 1e-7), -top, top), grid_error::none);
    ASSERT_EQ(rs.row_count(), 2u);
    EXPECT_EQ(rs.row_time(1), std::numeric_limits<float>::max());
}
