// inputanim gen: plausible synthetic recordings, one (-o FILE) or many (--count N --dir DIR).
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <system_error>

#include "commands.hpp"
#include "inputanim/generate.hpp"
#include "options.hpp"
#include "reading.hpp"

namespace inputanim::cli {

namespace {

// Ceilings that keep a mistyped number from filling a disk (docs/CLI.md gives the sizes). A day
// of recording is about 3.3 GB thinned (14 GB compact and 48 GB full with --raw); ten million
// markers about 220 MB; a hundred thousand recordings of the default 10 s about 40 GB.
constexpr double max_seconds = 86400;
constexpr std::uint64_t max_markers = 10'000'000;
constexpr std::uint64_t max_count = 100'000;

struct gen_options {
    std::string output;
    std::string dir;
    unsigned count = 0;
    std::string version = "1.1";
    bool no_camera = false;
    bool no_hands = false;
    bool no_gaze = false;
    generate_options gen;
};

// MRTK names recordings InputAnimation-yyyyMMdd-HHmmss.bin (UTC); the i-th of a set is dated
// as if recorded one after another from 2020-01-01.
std::string recording_name(unsigned i, double seconds) {
    using namespace std::chrono;
    const sys_seconds start = sys_days{year{2020} / January / 1};
    const sys_seconds t = start + std::chrono::seconds(static_cast<long long>(i) *
                                                       static_cast<long long>(std::ceil(seconds)));
    const sys_days day = floor<days>(t);
    const year_month_day ymd{day};
    const hh_mm_ss hms{t - day};
    char name[64];
    std::snprintf(name, sizeof name, "InputAnimation-%04d%02u%02u-%02ld%02ld%02lld.bin",
                  static_cast<int>(ymd.year()), static_cast<unsigned>(ymd.month()),
                  static_cast<unsigned>(ymd.day()), static_cast<long>(hms.hours().count()),
                  static_cast<long>(hms.minutes().count()),
                  static_cast<long long>(hms.seconds().count()));
    return name;
}

// Writes one recording through the output primitive: whole, or not at all.
int write_one(const generate_options& o, const std::string& path) {
    output_file out;
    if (const std::optional<output_failure> failure = out.open(path)) {
        return output_failed(*failure);
    }
    if (const std::optional<int> failed = commit_output(out, generate_to(o, out))) return *failed;
    return exit_valid;
}

int run_gen(gen_options& g) {
    generate_options& o = g.gen;
    o.minor = g.version == "1.0" ? 0 : 1;
    o.blocks = block_flags{!g.no_camera, !g.no_hands, !g.no_gaze};
    if (const std::error_code problem = o.problem()) {
        std::cerr << "inputanim gen: " << problem.message() << '\n';
        return exit_usage;
    }
    if (g.output.empty() == (g.count == 0)) {
        std::cerr << "inputanim gen: give either -o FILE or --count N --dir DIR\n";
        return exit_usage;
    }
    if (!g.output.empty()) return write_one(o, g.output);
    std::error_code ec;
    std::filesystem::create_directories(g.dir, ec);
    if (ec) {
        std::cerr << "inputanim: " << printable(g.dir) << ": " << ec.message() << '\n';
        return exit_unreadable;
    }
    const std::uint64_t first_seed = o.seed;
    for (unsigned i = 0; i < g.count; ++i) {
        o.seed = first_seed + i;
        const int status = write_one(
            o, (std::filesystem::path(g.dir) / recording_name(i, o.seconds + 1)).string());
        if (status != exit_valid) return status;
    }
    return exit_valid;
}

}  // namespace

command add_gen_command(CLI::App& app) {
    auto g = std::make_shared<gen_options>();
    CLI::App* cmd = app.add_subcommand(
        "gen",
        "Write plausible synthetic recordings (camera, hands, gaze), deterministic per seed");
    cmd->add_option("-o,--output", g->output,
                    "The file to write (replaced only once complete; a device or FIFO is written "
                    "through; - for standard output)");
    cmd->add_option("--count", g->count,
                    "Write N recordings (seeds SEED, SEED+1, ...) into --dir; at most " +
                        std::to_string(max_count))
        ->transform(count_between(1, max_count))
        ->type_name("N");
    cmd->add_option("--dir", g->dir, "The folder for --count (created if missing)");
    cmd->add_option("--seconds", g->gen.seconds,
                    "Length of the recording; at most " + number_text(max_seconds) + " (a day)")
        ->transform(number_between(0, max_seconds))
        ->type_name("S")
        ->capture_default_str();
    add_rate_option(*cmd, g->gen.rate, "Samples per second before thinning")->capture_default_str();
    add_version_option(*cmd, g->version, "File version");
    add_layout_option(*cmd, g->gen.layout, "v1.1 float keyframes: compact (MRTK) or full");
    cmd->add_flag("--no-camera", g->no_camera, "Leave out the camera block");
    cmd->add_flag("--no-hands", g->no_hands, "Leave out the hands block");
    cmd->add_flag("--no-gaze", g->no_gaze, "Leave out the eye gaze block");
    cmd->add_option("--markers", g->gen.markers,
                    "Number of markers; at most " + std::to_string(max_markers))
        ->transform(count_between(0, max_markers))
        ->type_name("K")
        ->capture_default_str();
    cmd->add_option("--seed", g->gen.seed, "Random seed")->capture_default_str();
    cmd->add_flag("--raw", g->gen.raw,
                  "Keep every sample instead of thinning as MRTK does (very large files)");
    cmd->get_option("--count")->needs(cmd->get_option("--dir"));
    return {cmd, [g] { return run_gen(*g); }};
}

}  // namespace inputanim::cli
