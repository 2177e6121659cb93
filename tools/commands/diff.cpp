// inputanim diff A B: compares two recordings, their structure, their motion as MRTK plays it on a
// common grid, their tracked and pinch intervals, their markers and (--keys) their keys
// (docs/DIFF.md), B shifted by an offset given or found (--align). Exit 0 same within the
// tolerances, 1 they differ, 2 usage, 3 a side that cannot be read or whose structure is not
// sound, or takes that cannot be aligned (nothing compared).
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "commands.hpp"
#include "options.hpp"
#include "reading.hpp"
#include "report/compare_json.hpp"

namespace inputanim::cli {

namespace {

struct diff_options {
    std::string a;
    std::string b;
    compare_options compare;
    std::string format = "text";
    // Each side is held whole (the grid reads every curve at once): a gzip file or standard
    // input is read into memory up to this.
    std::uint64_t max_bytes = default_max_whole_bytes;
};

// "%.3f" and friends without iostream state.
std::string fixed(double v, int digits) {
    if (!std::isfinite(v)) return "not finite";
    char text[64];
    std::snprintf(text, sizeof text, "%.*f", digits, v);
    return text;
}

// An error in the unit people read it in: millimetres for positions, degrees for angles.
std::string error_text(double v, error_kind k) {
    return k == error_kind::position ? fixed(v * 1000.0, 3) + " mm" : fixed(v, 3) + " deg";
}

std::string side_text(const summary& s) {
    return std::string(version_name(s.edition, s.major, s.minor)) + " " +
           std::string(layout_name(s.layout)) + ", " + std::to_string(s.keyframes) + " keys, " +
           (s.markers ? std::to_string(*s.markers) : std::string("no")) + " markers";
}

std::string marker_text(const std::optional<marker>& m) {
    return m ? fixed(m->time, 3) + " s '" + printable(m->name) + "'" : std::string("-");
}

std::string interval_text(const std::optional<interval>& i) {
    return i ? "[" + fixed(i->start, 3) + ", " + fixed(i->end, 3) + ")" : std::string("-");
}

void print_text(const diff_options& o, const comparison& c) {
    std::cout << "A: " << printable(o.a) << " (" << side_text(c.a) << ")\n"
              << "B: " << printable(o.b) << " (" << side_text(c.b) << ")\n";
    if (c.alignment) {
        std::cout << "aligned: B's motion is " << fixed(std::abs(c.offset), 3) << " s "
                  << (c.offset < 0.0 ? "earlier" : "later") << " than A's (correlation "
                  << fixed(c.alignment->confidence, 3) << " over " << fixed(c.alignment->overlap, 1)
                  << " s of head motion); times below are A's\n";
    } else if (c.offset != 0.0) {
        std::cout << "offset: B compared " << fixed(c.offset, 3)
                  << " s after each time of A; times below are A's\n";
    }
    if (c.blocks_differ)
        std::cout << "blocks differ: the curves of a block only one holds are not compared\n";
    if (c.key_count_curves != 0) {
        std::cout << "key counts differ on " << c.key_count_curves
                  << " curves (thinning and conversion change them; --keys compares keys)\n";
    }
    // The first differences first: every motion past its tolerance by the time it first was.
    std::vector<const motion_difference*> exceeded;
    for (const motion_difference& m : c.motion) {
        if (comparison::exceeded(m)) exceeded.push_back(&m);
    }
    std::stable_sort(exceeded.begin(), exceeded.end(),
                     [](auto* x, auto* y) { return *x->first_exceeded < *y->first_exceeded; });
    for (const motion_difference* m : exceeded) {
        const double tol =
            m->kind == error_kind::position ? c.tolerance.position : c.tolerance.angle;
        std::cout << "motion: " << m->name << " differs from " << fixed(*m->first_exceeded, 3)
                  << " s by " << error_text(m->first_exceeded_error, m->kind) << " (tolerance "
                  << error_text(tol, m->kind) << "; max " << error_text(m->max, m->kind) << " at "
                  << fixed(m->max_time, 3) << " s)\n";
    }
    for (std::size_t h = 0; h < 2; ++h) {
        if (c.tracking_mismatch_rows[h] == 0) continue;
        std::cout << "tracking: the " << (h == 0 ? "left" : "right")
                  << " hand's tracked state differs on " << c.tracking_mismatch_rows[h]
                  << " grid rows (its joints are compared only where both track it)\n";
    }
    for (const state_difference& s : c.state) {
        std::cout << "state: " << curve_path(s.curve) << " " << interval_change_name(s.change)
                  << ": A " << interval_text(s.a) << " B " << interval_text(s.b) << '\n';
    }
    if (c.state_count > c.state.size()) {
        std::cout << "state: " << c.state_count - c.state.size() << " more differences\n";
    }
    for (const marker_difference& m : c.markers) {
        std::cout << "marker " << marker_change_name(m.change) << ": A " << marker_text(m.a)
                  << " B " << marker_text(m.b) << '\n';
    }
    if (c.marker_count > c.markers.size()) {
        std::cout << "markers: " << c.marker_count - c.markers.size() << " more differences\n";
    }
    if (c.key_curves) {
        for (const key_difference& k : c.keys) {
            std::cout << "keys: " << curve_path(k.curve) << " " << k.field;
            if (k.key) std::cout << " of key " << *k.key;
            std::cout << ": A " << number_text(k.a) << " B " << number_text(k.b) << '\n';
        }
        if (*c.key_curves > c.keys.size()) {
            std::cout << "keys: " << *c.key_curves - c.keys.size() << " more curves differ\n";
        }
    }
    // A table per block: its largest errors, then a line per pose past its tolerance.
    std::cout << "grid: " << c.rows << " rows at " << number_text(c.rate) << " per second";
    if (c.from) std::cout << " from " << fixed(*c.from, 3) << " s to " << fixed(*c.to, 3) << " s";
    std::cout << '\n';
    const std::array<std::pair<std::string_view, std::string_view>, 4> blocks = {
        {{"head", "camera."},
         {"left hand", "hand.left."},
         {"right hand", "hand.right."},
         {"gaze", "gaze."}}};
    for (const auto& [title, prefix] : blocks) {
        std::size_t compared = 0;
        std::size_t zero = 0;
        std::size_t past = 0;
        const motion_difference* worst_position = nullptr;
        const motion_difference* worst_angle = nullptr;
        std::string rows;
        for (const motion_difference& m : c.motion) {
            if (!m.name.starts_with(prefix)) continue;
            ++compared;
            if (m.max == 0.0) ++zero;
            const motion_difference*& worst =
                m.kind == error_kind::position ? worst_position : worst_angle;
            if (!worst || m.max > worst->max) worst = &m;
            if (!comparison::exceeded(m)) continue;
            ++past;
            rows += "  " + std::string(m.name) + "  max " + error_text(m.max, m.kind) + "  rms " +
                    error_text(m.rms, m.kind) + "  first past tolerance " +
                    fixed(*m.first_exceeded, 3) + " s\n";
        }
        if (compared == 0) continue;
        std::cout << title << ": " << compared << " poses, " << zero << " identical, " << past
                  << " past tolerance";
        for (const motion_difference* w : {worst_position, worst_angle}) {
            if (w && w->max > 0.0) {
                std::cout << "; largest " << error_kind_name(w->kind) << " error "
                          << error_text(w->max, w->kind) << " (" << w->name << ")";
            }
        }
        std::cout << '\n' << rows;
    }
    std::cout << (c.same() ? "same within tolerance" : "differ") << '\n';
}

// Loads and opens one side; a failure is exit 3 whatever the reason (nothing is compared).
std::optional<int> load_side(const std::string& name, const validate_options& how,
                             loaded_recording& out) {
    if (read_recording(name, how, out)) return exit_unreadable;
    if (open_evaluable(name, out, how, false, "")) return exit_unreadable;
    return std::nullopt;
}

int run_diff(const diff_options& o) {
    if (o.compare.window.problem()) {
        return usage_error("diff", o.compare.window.problem_text("--from", "--until"));
    }
    validate_options how;
    how.limits.max_bytes = o.max_bytes;
    loaded_recording a;
    loaded_recording b;
    if (const std::optional<int> status = load_side(o.a, how, a)) return *status;
    if (const std::optional<int> status = load_side(o.b, how, b)) return *status;
    comparison c;
    std::error_code ec;
    const std::array<std::span<const std::byte>, 2> regions = {a.bytes(), b.bytes()};
    // A fault leaves compare() by a jump: the comparison's lists (the markers' copies) are then
    // lost, which the exit that follows makes moot.
    const std::size_t fault =
        guarded_each(regions, [&] { ec = compare(a.recording(), b.recording(), o.compare, c); });
    if (fault != regions.size()) {
        std::cerr << "inputanim: " << printable(fault == 0 ? o.a : o.b) << ": "
                  << std::make_error_code(std::errc::io_error).message() << '\n';
        return exit_unreadable;
    }
    if (ec == grid_error::too_many_rows) {
        return usage_error("diff", "more than " + std::to_string(o.compare.max_rows) +
                                       " rows (--max-rows): raise --max-rows, lower --rate or "
                                       "narrow --from/--until");
    }
    if (ec == grid_error::bad_rate) {
        return usage_error("diff", "--rate " + number_text(o.compare.rate) +
                                       " is too small: its step 1 / rate is not a finite number");
    }
    if (ec.category() == align_error_category()) {
        std::cerr << "inputanim diff: cannot align " << printable(o.a) << " and " << printable(o.b)
                  << ": " << ec.message()
                  << tools::align_hint(static_cast<align_error>(ec.value()), "--offset", "--rate")
                  << '\n';
        return exit_unreadable;
    }
    if (ec == grid_error::bad_time) {
        std::cerr << "inputanim diff: a key time is not finite, so no time range: give both "
                     "--from and --until\n";
        return exit_unreadable;
    }
    if (ec) {
        std::cerr << "inputanim diff: " << ec.message() << '\n';
        return ec == std::errc::not_enough_memory ? exit_unreadable : exit_usage;
    }
    if (o.format == "json") {
        nlohmann::json j = tools::compare_json(c);
        j["a"]["path"] = o.a;
        j["b"]["path"] = o.b;
        std::cout << j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
    } else {
        print_text(o, c);
    }
    return finish_stdout(c.same() ? exit_valid : exit_invalid);
}

}  // namespace

command add_diff_command(CLI::App& app) {
    auto o = std::make_shared<diff_options>();
    o->compare.max_rows = default_max_rows;
    CLI::App* cmd = app.add_subcommand(
        "diff",
        "Compare two recordings: structure, motion as MRTK plays it, tracking, pinches, "
        "markers (exit 0 same within tolerance, 1 differ)");
    add_recording_argument(*cmd, "A", o->a);
    add_recording_argument(*cmd, "B", o->b);
    add_rate_option(*cmd, o->compare.rate, "Grid points per second")->capture_default_str();
    add_window_options(
        *cmd, o->compare.window, "",
        "First grid time (default: the earlier first key time of A and B)",
        "Last grid time, inclusive (default: the later duration); not before --from");
    add_tolerance_options(*cmd, o->compare.tolerance, "");
    CLI::Option* align =
        cmd->add_flag("--align", o->compare.align,
                      "Estimate how much later B's take started from the heads' motion "
                      "(docs/DIFF.md, Alignment) and compare after shifting B by it");
    cmd->add_option("--offset", o->compare.offset,
                    "Compare B this many seconds after each time of A (B's take started that "
                    "much later; negative: earlier)")
        ->transform(number_between(-1e9, 1e9))
        ->type_name("S")
        ->excludes(align);
    cmd->add_flag("--keys", o->compare.keys,
                  "Also compare the keys bit for bit (time, value, tangents, weights, mode; a "
                  "compact key is (t, v, 0, 0, 0, 0, 3))");
    add_format_option(*cmd, o->format, {"text", "json"},
                      "text: the first differences, then a table per block; json: docs/DIFF.md");
    cmd->add_flag_callback(
        "--json", [o] { o->format = "json"; }, "The same as --format json");
    add_max_rows_option(*cmd, o->compare.max_rows,
                        "Most grid rows compared; a grid with more is refused before any is "
                        "evaluated");
    add_max_bytes_option(*cmd, o->max_bytes);
    return {cmd, [o] { return run_diff(*o); }};
}

}  // namespace inputanim::cli
