// The export's steps that read the recording (inputanim::exporter's plan and next) allocate
// nothing, so that a caller can run them under guarded() over a mapping: checked with every
// global operator new replaced by a counting one, for every format, over a generated recording
// with every block and markers.
#include <gtest/gtest.h>

#include <string>
#include <utility>

#include "inputanim/generate.hpp"
#include "support/allocation_counter.hpp"
#include "support/builders.hpp"
#include "support/generated.hpp"

using namespace inputanim;
using namespace inputanim::testing;

TEST(ExportAllocation, NoneWhilePlanningOrMakingAPiece) {
    for (const auto& [minor, lay] :
         {std::pair{0, layout::full}, std::pair{1, layout::compact}, std::pair{1, layout::full}}) {
        generate_options g;
        g.seconds = 3;
        g.minor = minor;
        g.layout = lay;
        g.markers = 3;
        model m = generated_model(g);
        // A name longer than a piece, escaped on the way, and (in the full layout) a weight out
        // of [0, 1], which makes the plan resample its curve once to know its values finite.
        if (m.markers) m.markers->push_back({1.0f, std::string(300'000, '\x85')});
        m[camera_curve(pose_channel::position_x)].keys.front().in_weight = 5.0f;
        const bytes file = write(m);
        recording rec;
        ASSERT_FALSE(rec.open(view(file)));
        for (const export_format f :
             {export_format::glb, export_format::gltf, export_format::anim}) {
            export_options o;
            o.format = f;
            exporter e(rec, o);
            allocation_probe planning;
            const export_result planned = e.plan();
            const std::size_t in_plan = planning.count();
            ASSERT_FALSE(planned.error) << planned.error.message();
            ASSERT_FALSE(e.prepare());
            std::uint64_t total = 0;
            std::size_t pieces = 0;
            allocation_probe making;
            for (std::span<const std::byte> p = e.next(); !p.empty(); p = e.next()) {
                total += p.size();
                ++pieces;
            }
            const std::size_t in_pieces = making.count();
            EXPECT_EQ(in_plan, 0u) << export_format_name(f) << " minor " << minor;
            EXPECT_EQ(in_pieces, 0u) << export_format_name(f) << " minor " << minor;
            EXPECT_GT(pieces, 1u);
            if (f != export_format::anim) {
                EXPECT_EQ(total, planned.size);
            }
        }
    }
}
