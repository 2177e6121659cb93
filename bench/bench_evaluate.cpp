// Evaluation cost: random-access evaluate() on a 1,000-key curve of each segment kind, and
// evaluate() and sequential sampling over a generated 10-minute recording (every curve keyed at
// 60 Hz with smooth motion, compact layout as MRTK 2.6+ writes it). `time_per_value` is the
// cost of one curve value (items_per_second its inverse).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <random>
#include <vector>

#include "inputanim/inputanim.hpp"

namespace {

using namespace inputanim;

constexpr double key_rate = 60.0;

struct opened_file {
    std::vector<std::byte> bytes;
    recording rec;
};

std::unique_ptr<opened_file> open_model(const model& m) {
    auto f = std::make_unique<opened_file>();
    f->bytes = write(m);
    if (f->rec.open(f->bytes)) std::abort();
    return f;
}

float key_time(std::size_t i) {
    return static_cast<float>(static_cast<double>(i) / key_rate);
}

// Smooth motion, different on every curve: a few slow sines, as a tracked head or hand moves.
float motion(std::size_t curve, double t) {
    const double c = static_cast<double>(curve);
    return static_cast<float>(0.3 * std::sin(0.7 * t + c) + 0.05 * std::sin(3.1 * t + 2.0 * c) +
                              0.01 * c);
}

const opened_file& ten_minutes() {
    static const std::unique_ptr<opened_file> file = [] {
        constexpr std::size_t keys = 10 * 60 * 60 + 1;
        model m;  // v1.1, all blocks, compact
        for (std::size_t id = 0; id < curve_id_count; ++id) {
            std::vector<keyframe>& out = m.curves[id].keys;
            if (kind_of(curve_id(id)) == curve_kind::bool_curve) {
                // MRTK keys a bool curve at the start and at each change: here every 4-8 s.
                const std::size_t period = 60 * (4 + id % 5);
                for (std::size_t i = 0; i < keys; i += period) {
                    out.push_back({key_time(i), static_cast<float>((i / period) % 2)});
                }
                continue;
            }
            out.reserve(keys);
            for (std::size_t i = 0; i < keys; ++i) {
                out.push_back({key_time(i), motion(id, static_cast<double>(i) / key_rate)});
            }
        }
        return open_model(m);
    }();
    return *file;
}

enum class segment_kind { compact_linear, mrtk_v10_linear, hermite, weighted };

const opened_file& thousand_keys(segment_kind kind) {
    static std::unique_ptr<opened_file> files[4];
    auto& f = files[static_cast<int>(kind)];
    if (f) return *f;
    model m;
    m.blocks = {true, false, false};
    m.layout = kind == segment_kind::compact_linear ? layout::compact : layout::full;
    if (kind == segment_kind::mrtk_v10_linear) m.minor = 0;
    std::vector<keyframe>& keys = m[camera_curve(pose_channel::position_x)].keys;
    for (std::size_t i = 0; i < 1000; ++i) {
        keyframe k{key_time(i), motion(0, static_cast<double>(i) / key_rate)};
        if (kind == segment_kind::hermite || kind == segment_kind::weighted) {
            k.in_tangent = 0.5f;
            k.out_tangent = -0.25f;
            k.weighted_mode = kind == segment_kind::hermite ? 0 : 3;
            k.in_weight = 0.6f;
            k.out_weight = 0.2f;
        }
        keys.push_back(k);
    }
    f = open_model(m);
    return *f;
}

void count_values(benchmark::State& state, std::int64_t values) {
    state.SetItemsProcessed(values);
    state.counters["time_per_value"] = benchmark::Counter(
        static_cast<double>(values), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

std::vector<float> random_times(float from, float to) {
    std::mt19937 rng(42);
    std::uniform_real_distribution<float> pick(from, to);
    std::vector<float> out(4096);
    for (float& t : out) t = pick(rng);
    return out;
}

void BM_EvaluateRandomAccess1000Keys(benchmark::State& state) {
    const curve_view& c = *thousand_keys(static_cast<segment_kind>(state.range(0)))
                               .rec.find(camera_curve(pose_channel::position_x));
    const std::vector<float> times = random_times(c.keys.front().time(), c.keys.back().time());
    std::size_t i = 0;
    for (auto _ : state) {
        benchmark::DoNotOptimize(evaluate(c, times[i++ & 4095]));
    }
    count_values(state, static_cast<std::int64_t>(state.iterations()));
}
BENCHMARK(BM_EvaluateRandomAccess1000Keys)
    ->ArgName("kind")
    ->Arg(static_cast<int>(segment_kind::compact_linear))
    ->Arg(static_cast<int>(segment_kind::mrtk_v10_linear))
    ->Arg(static_cast<int>(segment_kind::hermite))
    ->Arg(static_cast<int>(segment_kind::weighted));

// The baseline for random access: the keys decoded into vectors, as a straightforward reader
// holds them, and the segment found with std::upper_bound and interpolated linearly (what the
// compact keys' evaluation amounts to).
void BM_StraightforwardLerp1000Keys(benchmark::State& state) {
    const curve_view& c = *thousand_keys(segment_kind::compact_linear)
                               .rec.find(camera_curve(pose_channel::position_x));
    std::vector<float> key_times;
    std::vector<float> key_values;
    for (const keyframe_view k : c.keys) {
        key_times.push_back(k.time());
        key_values.push_back(k.value());
    }
    const std::vector<float> times = random_times(key_times.front(), key_times.back());
    std::size_t i = 0;
    for (auto _ : state) {
        const float t = times[i++ & 4095];
        const auto right = std::upper_bound(key_times.begin(), key_times.end(), t);
        float v;
        if (right == key_times.begin()) {
            v = key_values.front();
        } else if (right == key_times.end()) {
            v = key_values.back();
        } else {
            const std::size_t r = static_cast<std::size_t>(right - key_times.begin());
            const float s = (t - key_times[r - 1]) / (key_times[r] - key_times[r - 1]);
            v = key_values[r - 1] + s * (key_values[r] - key_values[r - 1]);
        }
        benchmark::DoNotOptimize(v);
    }
    count_values(state, static_cast<std::int64_t>(state.iterations()));
}
BENCHMARK(BM_StraightforwardLerp1000Keys);

// A 120 Hz grid over 60 Hz keys: one or two values per segment, as a renderer samples.
void BM_SamplerSequential1000Keys(benchmark::State& state) {
    const curve_view& c = *thousand_keys(segment_kind::compact_linear)
                               .rec.find(camera_curve(pose_channel::position_x));
    curve_sampler sampler(c);
    const std::size_t steps = 2 * 1000;
    std::size_t i = 0;
    for (auto _ : state) {
        benchmark::DoNotOptimize(sampler(static_cast<float>(static_cast<double>(i) / 120.0)));
        if (++i == steps) i = 0;
    }
    count_values(state, static_cast<std::int64_t>(state.iterations()));
}
BENCHMARK(BM_SamplerSequential1000Keys);

// Every curve of the 10-minute recording at a random time: a binary search per value.
void BM_RecordingEvaluateRandomTimes(benchmark::State& state) {
    const recording& rec = ten_minutes().rec;
    const std::vector<float> times = random_times(0.0f, 600.0f);
    std::size_t i = 0;
    for (auto _ : state) {
        const float t = times[i++ & 4095];
        for (const curve_view& c : rec.curves()) benchmark::DoNotOptimize(evaluate(c, t));
    }
    count_values(state, static_cast<std::int64_t>(state.iterations() * rec.curves().size()));
}
BENCHMARK(BM_RecordingEvaluateRandomTimes);

// The baseline for resampling: the same 60 Hz grid as BM_RecordingResample/hz:60, each value
// found on its own with evaluate() (a binary search per value).
void BM_RecordingEvaluateAt60HzGrid(benchmark::State& state) {
    const recording& rec = ten_minutes().rec;
    const std::size_t rows = 10 * 60 * 60 + 1;
    std::size_t i = 0;
    for (auto _ : state) {
        const float t = static_cast<float>(static_cast<double>(i) / 60.0);
        for (const curve_view& c : rec.curves()) benchmark::DoNotOptimize(evaluate(c, t));
        if (++i == rows) i = 0;
    }
    count_values(state, static_cast<std::int64_t>(state.iterations() * rec.curves().size()));
}
BENCHMARK(BM_RecordingEvaluateAt60HzGrid);

// The whole 10-minute recording resampled row by row (what `inputanim sample` streams).
void BM_RecordingResample(benchmark::State& state) {
    const recording& rec = ten_minutes().rec;
    resampler rs(rec);
    rs.select_all();
    if (rs.set_grid(static_cast<double>(state.range(0))) != grid_error::none) std::abort();
    std::vector<float> row(rs.curves().size());
    for (auto _ : state) {
        if (!rs.next(row)) {
            rs.rewind();
            rs.next(row);
        }
        benchmark::DoNotOptimize(row.data());
        benchmark::ClobberMemory();
    }
    count_values(state, static_cast<std::int64_t>(state.iterations() * rs.curves().size()));
}
BENCHMARK(BM_RecordingResample)->ArgName("hz")->Arg(30)->Arg(60)->Arg(240);

}  // namespace
