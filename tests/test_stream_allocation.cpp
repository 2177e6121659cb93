// The streaming validator never allocates: construction, feed at any chunk size, finish and the
// result are checked with every global operator new replaced by a counting one
// (support/allocation_counter.cpp; it takes precedence over the sanitizer runtime's too).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "support/allocation_counter.hpp"
#include "support/builders.hpp"

using namespace inputanim;
using namespace inputanim::testing;

namespace {

struct outcome {
    std::size_t allocations = 0;
    bool valid = false;
    errc code = errc::ok;
    std::size_t warnings = 0;
};

// Everything a server does with a validator, from construction to the report, in chunks of
// `chunk` bytes, inside one probe.
outcome stream_counting(std::span<const std::byte> b, const validate_options& options,
                        std::size_t chunk) {
    const allocation_probe probe;
    stream_validator v(options);
    for (std::size_t pos = 0; pos < b.size(); pos += chunk) {
        const std::size_t n = std::min(chunk, b.size() - pos);
        if (v.feed(b.subspan(pos, n)) == stream_status::error) break;
    }
    v.finish();
    const report& r = v.result();
    return {probe.count(), r.valid(), r.error.code, r.warnings_found};
}

// The writer allocates (its output vector): the counter must see it, or the zeros below mean
// nothing.
TEST(StreamAllocationCounter, SeesTheLibraryAllocate) {
    const allocation_probe probe;
    const bytes b = small_file(shape::v10);
    const std::size_t counted = probe.count();
    EXPECT_GT(counted, 0u);
    EXPECT_FALSE(b.empty());
}

TEST(StreamValidatorAllocation, NoneForValidFilesAtAnyChunkSize) {
    for (shape s : all_shapes) {
        model m = small_model(s);
        // A warning too, so that the report's warning list is filled.
        m[camera_curve(pose_channel::position_z)].keys[0].time = -1.0f;
        const bytes b = write(m);
        for (std::size_t chunk : {std::size_t{1}, std::size_t{7}, std::size_t{28}, b.size()}) {
            const outcome o = stream_counting(view(b), validate_options{}, chunk);
            EXPECT_EQ(o.allocations, 0u) << shape_name(s) << ", chunks of " << chunk;
            EXPECT_TRUE(o.valid) << shape_name(s);
            EXPECT_EQ(o.warnings, 1u) << shape_name(s);
        }
    }
}

TEST(StreamValidatorAllocation, NoneForInvalidFiles) {
    model m = small_model(shape::v11_compact);
    (*m.markers)[1].name = "bad \xff name";
    const bytes bad_utf8 = write(m);
    bytes bad_wrap = small_file(shape::v11_full);
    put_i32(bad_wrap, 19 + 4, 99);
    const bytes whole = small_file(shape::v10);
    const bytes truncated(whole.begin(), whole.begin() + 3000);
    validate_options small_limit;
    small_limit.limits.max_bytes = 100;
    const std::pair<const bytes*, errc> cases[] = {{&bad_utf8, errc::bad_utf8},
                                                   {&bad_wrap, errc::bad_wrap_mode},
                                                   {&truncated, errc::truncated}};
    for (const auto& [b, code] : cases) {
        for (std::size_t chunk : {std::size_t{1}, std::size_t{13}, b->size()}) {
            const outcome o = stream_counting(view(*b), validate_options{}, chunk);
            EXPECT_EQ(o.allocations, 0u) << error_name(code) << ", chunks of " << chunk;
            EXPECT_EQ(o.code, code);
        }
    }
    const outcome o = stream_counting(view(whole), small_limit, 64);
    EXPECT_EQ(o.allocations, 0u);
    EXPECT_EQ(o.code, errc::limit_exceeded);
}

TEST(StreamValidatorAllocation, NoneForARealRecording) {
    const auto b = june_recording("InputAnimation-20190607-120309.bin");
    if (!b) GTEST_SKIP() << "no June 2019 recordings in " << recordings_dir();
    for (std::size_t chunk : {std::size_t{1}, std::size_t{4096}}) {
        const outcome o = stream_counting(view(*b), validate_options{}, chunk);
        EXPECT_EQ(o.allocations, 0u) << "chunks of " << chunk;
        EXPECT_TRUE(o.valid);
    }
}

}  // namespace
