// Opening one member of a large archive where an index row says it is (open_member_at: no walk
// of the archive), next to its baselines in the same run: the same bytes opened as a loose file,
// and the member found by its name after a walk of the archive's headers (open_member). Each
// opening also reads the recording's structure, as inputanim.open does. The archive is the one
// INPUTANIM_BENCH_ARCHIVE names (bench/run: a tar of 2 GiB of generated recordings), its member
// the last recording in it; the loose copy is written beside the scratch data
// (INPUTANIM_BENCH_LOOSE), page cache warm.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <fstream>
#include <optional>
#include <string>

#include "inputanim/archive.hpp"
#include "inputanim/inputanim.hpp"

namespace {

using namespace inputanim;

struct place {
    std::string archive;
    std::string loose;
    archive_member member;
};

// The last file member of the archive, found once, and its bytes written as a loose file.
const std::optional<place>& last_member() {
    static const std::optional<place> found = []() -> std::optional<place> {
        const char* archive = std::getenv("INPUTANIM_BENCH_ARCHIVE");
        const char* loose = std::getenv("INPUTANIM_BENCH_LOOSE");
        if (archive == nullptr || loose == nullptr) return std::nullopt;
        std::error_code ec;
        input in = input::open(archive, ec);
        archive_reader r = archive_reader::open(in, {}, ec);
        if (ec) return std::nullopt;
        place p{archive, loose, {}};
        archive_member m;
        bool any = false;
        while (r.next(m)) {
            if (m.kind != member_kind::file || !m.data_offset) continue;
            p.member = m;
            any = true;
        }
        if (!any) return std::nullopt;
        input member =
            open_member_at(p.archive, p.member.name, *p.member.data_offset, p.member.size, ec);
        if (ec) return std::nullopt;
        std::ofstream(loose, std::ios::binary)
            .write(reinterpret_cast<const char*>(member.mapped().data()),
                   static_cast<std::streamsize>(member.mapped().size()));
        return p;
    }();
    return found;
}

// Opens `in`'s recording as inputanim.open does: its structure read.
void open_recording(benchmark::State& state, input& in) {
    recording rec;
    const error e = rec.open(in.mapped());
    if (e) state.SkipWithError(e.message().c_str());
    benchmark::DoNotOptimize(rec.summary().curves);
}

void BM_member_at_its_offset(benchmark::State& state) {
    const std::optional<place>& p = last_member();
    if (!p) return state.SkipWithError("set INPUTANIM_BENCH_ARCHIVE and INPUTANIM_BENCH_LOOSE");
    for (auto _ : state) {
        std::error_code ec;
        input in =
            open_member_at(p->archive, p->member.name, *p->member.data_offset, p->member.size, ec);
        if (ec) return state.SkipWithError(ec.message().c_str());
        open_recording(state, in);
    }
}
BENCHMARK(BM_member_at_its_offset)->Unit(benchmark::kMicrosecond);

void BM_same_bytes_loose(benchmark::State& state) {
    const std::optional<place>& p = last_member();
    if (!p) return state.SkipWithError("set INPUTANIM_BENCH_ARCHIVE and INPUTANIM_BENCH_LOOSE");
    for (auto _ : state) {
        std::error_code ec;
        input in = input::open(p->loose, ec);
        if (ec) return state.SkipWithError(ec.message().c_str());
        open_recording(state, in);
    }
}
BENCHMARK(BM_same_bytes_loose)->Unit(benchmark::kMicrosecond);

void BM_member_by_name_after_a_walk(benchmark::State& state) {
    const std::optional<place>& p = last_member();
    if (!p) return state.SkipWithError("set INPUTANIM_BENCH_ARCHIVE and INPUTANIM_BENCH_LOOSE");
    for (auto _ : state) {
        std::error_code ec;
        input in = open_member(p->archive, p->member.name, ec);
        if (ec) return state.SkipWithError(ec.message().c_str());
        open_recording(state, in);
    }
}
BENCHMARK(BM_member_by_name_after_a_walk)->Unit(benchmark::kMillisecond);

}  // namespace
