// Export cost: a generated 10-minute recording (every block, thinned as MRTK 2.6+ writes it,
// 20 markers) exported to glTF at 60 Hz (.glb and .gltf) and to a Unity clip, into a sink that
// only counts the bytes: the exporter's own time, without the disk. `inputanim export` as a whole
// command, with its peak memory, is measured by hand (docs/EXPORT.md, "Performance").
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <vector>

#include "inputanim/generate.hpp"
#include "inputanim/inputanim.hpp"

namespace {

using namespace inputanim;

struct source {
    std::vector<std::byte> bytes;
    recording rec;
};

const source& ten_minutes() {
    static const source s = [] {
        generate_options g;
        g.seconds = 600;
        g.markers = 20;
        model m;
        if (generate(g, m)) std::abort();
        source out;
        out.bytes = write(m);
        return out;
    }();
    return s;
}

class counting_sink final : public byte_sink {
  public:
    std::error_code write(std::span<const std::byte> bytes) override {
        count += bytes.size();
        return {};
    }
    std::uint64_t count = 0;
};

void export_as(benchmark::State& state, export_format f) {
    const source& s = ten_minutes();
    recording rec;
    if (rec.open(s.bytes)) {
        state.SkipWithError("the generated recording does not open");
        return;
    }
    export_options o;
    o.format = f;
    std::uint64_t bytes = 0;
    for (auto _ : state) {
        counting_sink sink;
        const export_result r = export_recording(rec, sink, o);
        if (r.error) state.SkipWithError("the export failed");
        bytes = sink.count;
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * bytes));
    state.counters["output_bytes"] = static_cast<double>(bytes);
}

void BM_ExportGlb(benchmark::State& state) {
    export_as(state, export_format::glb);
}
void BM_ExportGltf(benchmark::State& state) {
    export_as(state, export_format::gltf);
}
void BM_ExportAnim(benchmark::State& state) {
    export_as(state, export_format::anim);
}
BENCHMARK(BM_ExportGlb)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ExportGltf)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ExportAnim)->Unit(benchmark::kMillisecond);

}  // namespace
