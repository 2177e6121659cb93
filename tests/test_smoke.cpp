#include <gtest/gtest.h>

#include "support/builders.hpp"

using namespace inputanim;
using namespace inputanim::testing;

TEST(Smoke, SmallFilesOfEveryShapeAreValid) {
    for (shape s : all_shapes) {
        const bytes b = small_file(s);
        const report r = validate(view(b));
        EXPECT_TRUE(r.valid()) << shape_name(s) << ": " << r.error.message();
    }
}
