// A recording converted in memory (convert.hpp), for the tests of the conversion: its bytes and
// the result, the conversion expected to succeed.
#pragma once

#include <gtest/gtest.h>

#include "inputanim/convert.hpp"
#include "support/builders.hpp"

namespace inputanim::testing {

struct converted {
    bytes data;
    convert_result result;
};

inline converted convert_bytes(const bytes& source, const convert_options& o = {}) {
    recording rec;
    EXPECT_FALSE(rec.open(view(source)));
    converted c;
    vector_sink sink(c.data);
    c.result = convert(rec, sink, o);
    EXPECT_FALSE(c.result.error) << c.result.error.message();
    return c;
}

}  // namespace inputanim::testing
