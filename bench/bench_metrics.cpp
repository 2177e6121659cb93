// Metrics cost: measure() over a generated 10-minute recording at 60 Hz (every metric, every
// event sent to a sink), next to its baseline in the same run: the resampler alone over the same
// 23 curves on the same grid, which is most of measure()'s work. Two files: the generator's
// thinned recording (as MRTK 2.6+ writes it) and the same motion with every 60 Hz sample kept
// (--raw: a key per curve per sample, the resampler's hardest case). One iteration is the whole
// recording; `time_per_sample` is its time over the 36,001 grid samples.
#include <benchmark/benchmark.h>

#include <array>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <vector>

#include "inputanim/generate.hpp"
#include "inputanim/inputanim.hpp"

namespace {

using namespace inputanim;

struct opened_file {
    std::vector<std::byte> bytes;
    recording rec;
};

// 0: thinned, 1: raw.
const opened_file& ten_minutes(bool raw) {
    static std::unique_ptr<opened_file> files[2];
    std::unique_ptr<opened_file>& f = files[raw ? 1 : 0];
    if (f) return *f;
    generate_options g;
    g.seconds = 600;
    g.raw = raw;
    f = std::make_unique<opened_file>();
    model m;
    if (generate(g, m)) std::abort();
    f->bytes = write(m);
    if (f->rec.open(f->bytes)) std::abort();
    return *f;
}

void count_samples(benchmark::State& state, std::uint64_t samples) {
    state.counters["time_per_sample"] =
        benchmark::Counter(static_cast<double>(samples) * static_cast<double>(state.iterations()),
                           benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
    state.counters["keys"] =
        static_cast<double>(ten_minutes(state.range(0) != 0).rec.summary().keyframes);
}

// Counts events, as a caller that stores them would receive them.
struct counting_sink final : metrics_sink {
    std::uint64_t events = 0;
    void tracked(side, const grid_interval&) override { ++events; }
    void gap(side, const grid_interval&) override { ++events; }
    void pinch(side, const grid_interval&) override { ++events; }
    void fixation(const inputanim::fixation&) override { ++events; }
    void saccade(const inputanim::saccade&) override { ++events; }
};

void BM_Measure(benchmark::State& state) {
    const recording& rec = ten_minutes(state.range(0) != 0).rec;
    recording_metrics m;
    counting_sink sink;
    for (auto _ : state) {
        if (measure(rec, {}, m, &sink)) std::abort();
        benchmark::DoNotOptimize(m);
    }
    count_samples(state, m.samples);
    state.counters["events"] =
        static_cast<double>(sink.events) / static_cast<double>(state.iterations());
}
BENCHMARK(BM_Measure)->ArgName("raw")->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

// The baseline: the curves measure() reads, resampled on its grid and nothing more.
void BM_ResampleMetricCurves(benchmark::State& state) {
    const recording& rec = ten_minutes(state.range(0) != 0).rec;
    std::uint64_t rows = 0;
    for (auto _ : state) {
        resampler rs(rec);
        for (const char* glob : {"camera.**", "gaze.**", "hand.*.tracked", "hand.*.pinching",
                                 "hand.*.joint.Palm.position.*"}) {
            rs.select(glob);
        }
        if (rs.set_grid(60.0) != grid_error::none) std::abort();
        std::array<float, 32> row{};
        rows = 0;
        while (rs.next(row)) ++rows;
        benchmark::DoNotOptimize(row.data());
    }
    count_samples(state, rows);
}
BENCHMARK(BM_ResampleMetricCurves)->ArgName("raw")->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

}  // namespace
