// Evaluation never allocates: evaluate, the sampler, poses and the resampler are checked with
// every global operator new replaced by a counting one.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <utility>

#include "inputanim/generate.hpp"
#include "support/allocation_counter.hpp"
#include "support/builders.hpp"
#include "support/generated.hpp"

using namespace inputanim;
using namespace inputanim::testing;

namespace {

struct generated_recording {
    bytes file;
    recording rec;
};

// A generated recording: every block, thinned curves of different lengths, markers.
void open_generated(generated_recording& o, int minor, layout lay) {
    generate_options g;
    g.seconds = 2;
    g.minor = minor;
    g.layout = lay;
    g.markers = 2;
    o.file = write(generated_model(g));
    ASSERT_FALSE(o.rec.open(view(o.file)));
}

}  // namespace

TEST(EvaluateAllocation, NoneInEvaluateAndTheSamplerOverEveryCurve) {
    for (const auto& [minor, lay] :
         {std::pair{0, layout::full}, std::pair{1, layout::compact}, std::pair{1, layout::full}}) {
        generated_recording o;
        open_generated(o, minor, lay);
        float sink = 0.0f;
        const allocation_probe probe;
        for (const curve_view& c : o.rec.curves()) {
            curve_sampler sampler(c);
            for (float t = -1.0f; t < 3.0f; t += 0.01f) {
                sink += evaluate(c, t) + sampler(t) + (evaluate_bool(c, t) ? 1.0f : 0.0f);
            }
        }
        const std::size_t counted = probe.count();
        EXPECT_EQ(counted, 0u) << "minor " << minor;
        EXPECT_TRUE(std::isfinite(sink));
    }
}

TEST(EvaluateAllocation, NoneInPoses) {
    generated_recording o;
    open_generated(o, 1, layout::compact);
    std::size_t present = 0;
    const allocation_probe probe;
    for (float t = 0.0f; t <= 2.0f; t += 0.1f) {
        present += camera_pose(o.rec, t, rotation::normalized).has_value();
        present += gaze_ray(o.rec, t).has_value();
        for (side s : {side::left, side::right}) {
            present +=
                hand_tracked(o.rec, s, t).has_value() + hand_pinching(o.rec, s, t).has_value();
            for (std::size_t j = 0; j < joint_count; ++j) {
                present += joint_pose(o.rec, s, static_cast<joint>(j), t).has_value();
            }
        }
    }
    const std::size_t counted = probe.count();
    EXPECT_EQ(counted, 0u);
    EXPECT_GT(present, 0u);
}

TEST(EvaluateAllocation, NoneInTheResampler) {
    generated_recording o;
    open_generated(o, 1, layout::full);
    std::array<float, curve_id_count> row{};
    std::uint64_t rows = 0;
    const allocation_probe probe;
    resampler rs(o.rec);
    rs.select("hand.left.joint.*.position.*");
    rs.select("camera.**");
    const grid_error g = rs.set_grid(60.0);
    while (rs.next(std::span<float>(row.data(), rs.curves().size()))) ++rows;
    const std::size_t counted = probe.count();
    EXPECT_EQ(counted, 0u);
    EXPECT_EQ(g, grid_error::none);
    EXPECT_EQ(rows, rs.row_count());
    EXPECT_GT(rows, 100u);
}
