// Generated recordings for tests, for test programs that link the generator. generated(): a
// small one for the tests of commands that write files (convert, the output primitive): 2 s with
// 3 markers, in the version and layout asked for.
#pragma once

#include <gtest/gtest.h>

#include <system_error>

#include "inputanim/generate.hpp"
#include "support/builders.hpp"

namespace inputanim::testing {

// The model of options the test means to be usable: their problem fails the test.
inline model generated_model(const generate_options& g) {
    model m;
    const std::error_code ec = generate(g, m);
    EXPECT_FALSE(ec) << ec.message();
    return m;
}

inline bytes generated(int minor = 1, layout l = layout::compact) {
    generate_options g;
    g.seconds = 2;
    g.markers = 3;
    g.minor = minor;
    g.layout = l;
    return write(generated_model(g));
}

}  // namespace inputanim::testing
