// Conversion throughput (inputanim/convert.hpp) next to its baselines in the same run: the same
// source bytes handed to the same sink in 8 KiB pieces without converting anything, which is
// what a plain copy costs, for the compact source and for a file of the full layout's size. The
// sink copies every byte into a 1 MiB ring, as a write to the page cache would. The sources are
// raw (unthinned) v1.1 recordings generated in memory, 5 minutes at 60 Hz: 48 MB compact, 167 MB
// full.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "inputanim/convert.hpp"
#include "inputanim/generate.hpp"

namespace {

using namespace inputanim;

std::vector<std::byte> generated(layout l) {
    generate_options g;
    g.seconds = 300;
    g.raw = true;
    g.layout = l;
    model m;
    if (generate(g, m)) std::abort();
    return write(m);
}

const std::vector<std::byte>& compact_source() {
    static const std::vector<std::byte> bytes = generated(layout::compact);
    return bytes;
}

const std::vector<std::byte>& full_source() {
    static const std::vector<std::byte> bytes = generated(layout::full);
    return bytes;
}

class ring_sink final : public byte_sink {
  public:
    std::error_code write(std::span<const std::byte> bytes) override {
        while (!bytes.empty()) {
            const std::size_t n = std::min(bytes.size(), ring_.size() - at_);
            std::memcpy(ring_.data() + at_, bytes.data(), n);
            at_ = (at_ + n) % ring_.size();
            bytes = bytes.subspan(n);
            written_ += n;
        }
        return {};
    }
    std::uint64_t written() const noexcept { return written_; }

  private:
    std::vector<std::byte> ring_ = std::vector<std::byte>(std::size_t{1} << 20);
    std::size_t at_ = 0;
    std::uint64_t written_ = 0;
};

// Source bytes per second (bytes_per_second) and output bytes per second (out_rate): a
// conversion that writes more than it reads (compact to full) is compared with the copy of a
// file of its output's size, one that writes less (a window) with the same conversion without it.
void report(benchmark::State& state, std::span<const std::byte> source, std::uint64_t out_bytes) {
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * source.size()));
    state.counters["out_MB"] = static_cast<double>(out_bytes) / 1e6;
    state.counters["out_rate"] =
        benchmark::Counter(static_cast<double>(out_bytes) * static_cast<double>(state.iterations()),
                           benchmark::Counter::kIsRate, benchmark::Counter::kIs1024);
}

void copy(benchmark::State& state, std::span<const std::byte> bytes) {
    std::uint64_t out = 0;
    for (auto _ : state) {
        ring_sink sink;
        for (std::size_t at = 0; at < bytes.size(); at += 8192) {
            sink.write(bytes.subspan(at, std::min<std::size_t>(8192, bytes.size() - at)));
        }
        out = sink.written();
        benchmark::ClobberMemory();
    }
    report(state, bytes, out);
}

void BM_copy_baseline(benchmark::State& state) {
    copy(state, compact_source());
}
BENCHMARK(BM_copy_baseline)->Unit(benchmark::kMillisecond);

// The copy of a file of the full layout's size: the baseline of conversions that write one.
void BM_copy_baseline_full(benchmark::State& state) {
    copy(state, full_source());
}
BENCHMARK(BM_copy_baseline_full)->Unit(benchmark::kMillisecond);

void run_convert(benchmark::State& state, const convert_options& o,
                 std::span<const std::byte> source = compact_source()) {
    recording rec;
    if (rec.open(source)) {
        state.SkipWithError("the generated recording does not open");
        return;
    }
    std::uint64_t out = 0;
    for (auto _ : state) {
        ring_sink sink;
        const convert_result r = convert(rec, sink, o);
        if (r.error) state.SkipWithError("convert failed");
        out = sink.written();
    }
    report(state, source, out);
}

void BM_convert_compact_to_compact(benchmark::State& state) {
    run_convert(state, convert_options{});
}
BENCHMARK(BM_convert_compact_to_compact)->Unit(benchmark::kMillisecond);

void BM_convert_compact_to_full(benchmark::State& state) {
    convert_options o;
    o.layout = layout::full;
    run_convert(state, o);
}
BENCHMARK(BM_convert_compact_to_full)->Unit(benchmark::kMillisecond);

void BM_convert_compact_to_v10(benchmark::State& state) {
    convert_options o;
    o.minor = 0;
    run_convert(state, o);
}
BENCHMARK(BM_convert_compact_to_v10)->Unit(benchmark::kMillisecond);

void BM_convert_full_to_compact(benchmark::State& state) {
    run_convert(state, convert_options{}, full_source());
}
BENCHMARK(BM_convert_full_to_compact)->Unit(benchmark::kMillisecond);

void BM_convert_full_to_v10(benchmark::State& state) {
    convert_options o;
    o.minor = 0;
    run_convert(state, o, full_source());
}
BENCHMARK(BM_convert_full_to_v10)->Unit(benchmark::kMillisecond);

// The window keeps 3 of the 5 minutes.
void BM_convert_window(benchmark::State& state) {
    convert_options o;
    o.from = 60.0f;
    o.to = 240.0f;
    run_convert(state, o);
}
BENCHMARK(BM_convert_window)->Unit(benchmark::kMillisecond);

void BM_convert_window_and_shift(benchmark::State& state) {
    convert_options o;
    o.from = 60.0f;
    o.to = 240.0f;
    o.shift_to_zero = true;
    run_convert(state, o);
}
BENCHMARK(BM_convert_window_and_shift)->Unit(benchmark::kMillisecond);

void BM_convert_window_and_shift_to_full(benchmark::State& state) {
    convert_options o;
    o.layout = layout::full;
    o.from = 60.0f;
    o.to = 240.0f;
    o.shift_to_zero = true;
    run_convert(state, o);
}
BENCHMARK(BM_convert_window_and_shift_to_full)->Unit(benchmark::kMillisecond);

void BM_convert_thin(benchmark::State& state) {
    convert_options o;
    o.thin = thinning{};
    run_convert(state, o);
}
BENCHMARK(BM_convert_thin)->Unit(benchmark::kMillisecond);

}  // namespace
