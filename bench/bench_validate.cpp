// Validation and summary cost on large generated recordings, each next to its baselines measured
// on the same bytes in the same run: the bandwidth floor (one pass over the same mapping that
// loads and sums every 8-byte word, vectorized for this processor, bandwidth_floor.hpp) and the
// straightforward reader (straightforward_reader.hpp).
// The files come from bench/run, which writes them into $INPUTANIM_BENCH_DATA:
//     compact-1g.bin, full-1g.bin   `inputanim gen --raw` (v1.1, both layouts), 1 GiB each
//     compact-1m.bin                the same at 1 MiB
// and, for the structure walks of many files, the first 2,000 recordings of the index set in
// $INPUTANIM_BENCH_INDEX (about 1.2 GB: more than the caches hold).
// `allocs_per_iter` counts the heap allocations of one iteration (global operator new, replaced by
// the tests' counting one).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "bandwidth_floor.hpp"
#include "inputanim/inputanim.hpp"
#include "inputanim/mapped_file.hpp"
#include "straightforward_reader.hpp"
#include "support/allocation_counter.hpp"

namespace {

using namespace inputanim;
using inputanim::bench::sum_words;

std::filesystem::path data_file(const char* name) {
    const char* dir = std::getenv("INPUTANIM_BENCH_DATA");
    return std::filesystem::path(dir != nullptr ? dir : "") / name;
}

// One mapping per file for the whole run, every page touched once so that all the benchmarks
// find the page cache warm and the page tables filled.
std::span<const std::byte> mapped(const char* name) {
    static std::map<std::string, mapped_file> files;
    auto it = files.find(name);
    if (it == files.end()) {
        std::error_code ec;
        mapped_file f = mapped_file::open(data_file(name), ec);
        if (ec) return {};
        benchmark::DoNotOptimize(sum_words(f.bytes()));
        it = files.emplace(name, std::move(f)).first;
    }
    return it->second.bytes();
}

bool have(benchmark::State& state, std::span<const std::byte> bytes, const char* name) {
    if (!bytes.empty()) return true;
    state.SkipWithError((data_file(name).string() + " is missing: run bench/run").c_str());
    return false;
}

void count(benchmark::State& state, std::uint64_t bytes, std::size_t allocations) {
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * bytes));
    state.counters["allocs_per_iter"] =
        static_cast<double>(allocations) / static_cast<double>(state.iterations());
}

// Runs f and adds the heap allocations it made to `total`.
template <class F>
auto counting(std::size_t& total, F&& f) {
    const inputanim::testing::allocation_probe probe;
    auto result = f();
    total += probe.count();
    return result;
}

void BM_BandwidthFloor(benchmark::State& state, const char* name) {
    const auto bytes = mapped(name);
    if (!have(state, bytes, name)) return;
    std::size_t allocations = 0;
    for (auto _ : state) {
        benchmark::DoNotOptimize(counting(allocations, [&] { return sum_words(bytes); }));
    }
    count(state, bytes.size(), allocations);
}

// The floor on two threads, each summing half of the bytes: what validate() on two threads
// is measured against.
void BM_BandwidthFloorTwoThreads(benchmark::State& state, const char* name) {
    const auto bytes = mapped(name);
    if (!have(state, bytes, name)) return;
    for (auto _ : state) benchmark::DoNotOptimize(sum_words(bytes, 2));
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * bytes.size()));
}

void BM_Validate(benchmark::State& state, const char* name, level lvl) {
    const auto bytes = mapped(name);
    if (!have(state, bytes, name)) return;
    std::size_t allocations = 0;
    for (auto _ : state) {
        const report r =
            counting(allocations, [&] { return validate(bytes, validate_options{lvl}); });
        if (!r.valid()) state.SkipWithError("the generated file is invalid");
        benchmark::DoNotOptimize(r);
    }
    count(state, bytes.size(), allocations);
}

void BM_ValidateFull(benchmark::State& state, const char* name) {
    BM_Validate(state, name, level::full);
}

// validate on two threads: the content checks split between both cores.
void BM_ValidateFullTwoThreads(benchmark::State& state, const char* name) {
    const auto bytes = mapped(name);
    if (!have(state, bytes, name)) return;
    for (auto _ : state) {
        report r;
        validate_options two{level::full};
        two.threads = 2;
        r = validate(bytes, two);
        if (!r.valid()) {
            state.SkipWithError("the generated file is invalid");
        }
        benchmark::DoNotOptimize(r);
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * bytes.size()));
}

void BM_Summary(benchmark::State& state, const char* name) {
    BM_Validate(state, name, level::structure);
}

void BM_Straightforward(benchmark::State& state, const char* name, straightforward::level lvl) {
    // The same bytes, warm in the page cache, read through std::ifstream.
    const auto bytes = mapped(name);
    if (!have(state, bytes, name)) return;
    const std::string path = data_file(name).string();
    std::size_t allocations = 0;
    for (auto _ : state) {
        const straightforward::result r =
            counting(allocations, [&] { return straightforward::read(path, lvl); });
        if (!r.error.empty()) state.SkipWithError(("straightforward reader: " + r.error).c_str());
        benchmark::DoNotOptimize(r.keyframes);
    }
    count(state, bytes.size(), allocations);
}

void BM_StraightforwardFull(benchmark::State& state, const char* name) {
    BM_Straightforward(state, name, straightforward::level::full);
}

void BM_StraightforwardSummary(benchmark::State& state, const char* name) {
    BM_Straightforward(state, name, straightforward::level::structure);
}

// The first 2,000 recordings of the index set, mapped once, every page touched.
const std::vector<std::span<const std::byte>>& index_set() {
    static std::vector<mapped_file> files;
    static std::vector<std::span<const std::byte>> bytes;
    if (files.empty()) {
        const char* dir = std::getenv("INPUTANIM_BENCH_INDEX");
        std::vector<std::filesystem::path> paths;
        if (dir != nullptr && std::filesystem::is_directory(dir)) {
            for (const auto& e : std::filesystem::directory_iterator(dir)) {
                if (e.path().extension() == ".bin") paths.push_back(e.path());
            }
        }
        std::sort(paths.begin(), paths.end());
        paths.resize(std::min<std::size_t>(paths.size(), 2000));
        for (const auto& p : paths) {
            std::error_code ec;
            mapped_file f = mapped_file::open(p, ec);
            if (ec) continue;
            benchmark::DoNotOptimize(sum_words(f.bytes()));
            bytes.push_back(f.bytes());
            files.push_back(std::move(f));
        }
    }
    return bytes;
}

// The summaries of the index set: one validate per file, or the many-inputs validate over them all.
void BM_SummaryOfManyFiles(benchmark::State& state, bool batch) {
    const auto& files = index_set();
    if (files.empty()) {
        state.SkipWithError("$INPUTANIM_BENCH_INDEX holds no recordings: run bench/run");
        return;
    }
    std::vector<report> reports(files.size());
    const validate_options summary{level::structure};
    for (auto _ : state) {
        if (batch) {
            validate(files, reports, summary);
        } else {
            for (std::size_t i = 0; i < files.size(); ++i) reports[i] = validate(files[i], summary);
        }
        benchmark::DoNotOptimize(reports.data());
    }
    for (const report& r : reports) {
        if (!r.valid()) state.SkipWithError("an index set file is invalid");
    }
    state.counters["time_per_file"] = benchmark::Counter(
        static_cast<double>(files.size()),
        benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

}  // namespace

BENCHMARK_CAPTURE(BM_SummaryOfManyFiles, one_validate_per_file, false)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_SummaryOfManyFiles, many_inputs, true)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_BandwidthFloor, compact_1g, "compact-1g.bin")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_BandwidthFloor, full_1g, "full-1g.bin")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_BandwidthFloorTwoThreads, compact_1g, "compact-1g.bin")
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(BM_BandwidthFloorTwoThreads, full_1g, "full-1g.bin")
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(BM_ValidateFull, compact_1g, "compact-1g.bin")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ValidateFull, full_1g, "full-1g.bin")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ValidateFullTwoThreads, compact_1g, "compact-1g.bin")
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(BM_ValidateFullTwoThreads, full_1g, "full-1g.bin")
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(BM_Summary, compact_1m, "compact-1m.bin")->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_Summary, compact_1g, "compact-1g.bin")->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_Summary, full_1g, "full-1g.bin")->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_StraightforwardFull, compact_1g, "compact-1g.bin")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_StraightforwardFull, full_1g, "full-1g.bin")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_StraightforwardSummary, compact_1g, "compact-1g.bin")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_StraightforwardSummary, full_1g, "full-1g.bin")->Unit(benchmark::kMillisecond);
