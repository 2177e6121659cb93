// Conversion throughput (inputanim/convert.hpp) next to its baseline in the same run: the same
// source bytes handed to the same sink in the encoder's 8 KiB pieces without converting anything,
// which is what a plain copy costs. The sink copies every byte into a 1 MiB ring, as a write to
// the page cache would. The source is a raw (unthinned) v1.1 compact recording generated in
// memory, 5 minutes at 60 Hz: 57 MB.
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

const std::vector<std::byte>& source() {
    static const std::vector<std::byte> bytes = [] {
        generate_options g;
        g.seconds = 300;
        g.raw = true;
        model m;
        if (generate(g, m)) std::abort();
        return write(m);
    }();
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

void report(benchmark::State& state, std::uint64_t out_bytes) {
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * source().size()));
    state.counters["out_MB"] = static_cast<double>(out_bytes) / 1e6;
}

void BM_copy_baseline(benchmark::State& state) {
    const std::span<const std::byte> bytes = source();
    std::uint64_t out = 0;
    for (auto _ : state) {
        ring_sink sink;
        for (std::size_t at = 0; at < bytes.size(); at += 8192) {
            sink.write(bytes.subspan(at, std::min<std::size_t>(8192, bytes.size() - at)));
        }
        out = sink.written();
        benchmark::ClobberMemory();
    }
    report(state, out);
}
BENCHMARK(BM_copy_baseline)->Unit(benchmark::kMillisecond);

void run_convert(benchmark::State& state, const convert_options& o) {
    recording rec;
    if (rec.open(source())) {
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
    report(state, out);
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

void BM_convert_window_and_shift(benchmark::State& state) {
    convert_options o;
    o.from = 60.0f;
    o.to = 240.0f;
    o.shift_to_zero = true;
    run_convert(state, o);
}
BENCHMARK(BM_convert_window_and_shift)->Unit(benchmark::kMillisecond);

void BM_convert_thin(benchmark::State& state) {
    convert_options o;
    o.thin = thinning{};
    run_convert(state, o);
}
BENCHMARK(BM_convert_thin)->Unit(benchmark::kMillisecond);

}  // namespace
