// A small generated recording for the tests of commands that write files (convert, the output
// primitive): 2 s with 3 markers, in the version and layout asked for. Only for test programs that
// link the generator.
#pragma once

#include "inputanim/generate.hpp"
#include "support/builders.hpp"

namespace inputanim::testing {

inline bytes generated(int minor = 1, layout l = layout::compact) {
    generate_options g;
    g.seconds = 2;
    g.markers = 3;
    g.minor = minor;
    g.layout = l;
    return write(generate(g));
}

}  // namespace inputanim::testing
