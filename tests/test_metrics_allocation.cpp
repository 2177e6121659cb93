// measure() never allocates, with or without a sink, checked with every global operator new
// replaced by a counting one.
#include <gtest/gtest.h>

#include <cstdint>

#include "inputanim/generate.hpp"
#include "support/allocation_counter.hpp"
#include "support/builders.hpp"
#include "support/generated.hpp"

using namespace inputanim;
using namespace inputanim::testing;

namespace {

// Counts events without allocating.
struct counting_sink final : metrics_sink {
    std::uint64_t events = 0;
    void tracked(side, const grid_interval&) override { ++events; }
    void gap(side, const grid_interval&) override { ++events; }
    void pinch(side, const grid_interval&) override { ++events; }
    void fixation(const inputanim::fixation&) override { ++events; }
    void saccade(const inputanim::saccade&) override { ++events; }
};

}  // namespace

TEST(MetricsAllocation, NoneInMeasureOverAGeneratedRecording) {
    generate_options g;
    g.seconds = 20;
    const bytes file = write(generated_model(g));
    recording rec;
    ASSERT_FALSE(rec.open(view(file)));
    recording_metrics with_events;
    recording_metrics without;
    counting_sink sink;
    const allocation_probe probe;
    const std::error_code a = measure(rec, {}, with_events, &sink);
    const std::error_code b = measure(rec, {}, without);
    const std::size_t counted = probe.count();
    EXPECT_EQ(counted, 0u);
    EXPECT_FALSE(a);
    EXPECT_FALSE(b);
    EXPECT_EQ(with_events.samples, 1201u);
    EXPECT_GT(sink.events, 0u);
    ASSERT_TRUE(with_events.gaze);
    EXPECT_GT(with_events.gaze->fixations, 0u);
}
