#include "http/viewer_routes.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstring>
#include <iostream>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "http/server.hpp"
#include "inputanim/inputanim.hpp"
#include "os/text.hpp"
#include "report/export_refusal.hpp"
#include "report/metrics_json.hpp"
#include "report/report_json.hpp"

namespace inputanim::http {

using tools::add_path;
using tools::event_collector;
using tools::event_rows;
using tools::fields;
using tools::json_number;
using tools::metrics_json;
using tools::metrics_options_json;
using tools::number_text;
using tools::object_of;
using tools::printable;
using tools::report_json;

namespace {

// The export's options as the route names them: it takes none (60 Hz, the whole recording, the
// command's ceiling).
constexpr tools::export_option_names viewer_export_names{"the ceiling", "the rate", "the start",
                                                         "the end"};

// Whether the report says that this curve's own bytes are wrong (its keys, or its header).
bool named_invalid(const report& rep, const curve_view& c) {
    return !rep.valid() && rep.error.place == error_place::curve && rep.error.curve == c.id;
}

void put_row(char* out, std::span<const float> row) {
    if constexpr (std::endian::native == std::endian::little) {
        std::memcpy(out, row.data(), row.size_bytes());
    } else {
        for (const float v : row) {
            const auto u = std::bit_cast<std::uint32_t>(v);
            for (int b = 0; b < 4; ++b) *out++ = static_cast<char>((u >> (8 * b)) & 0xff);
        }
    }
}

// The frames' grid within `max_frame_bytes`. Its rows are counted as the resampler will produce
// them (set_grid's count: far from 0, grid points sharing a float32 time are one row), against the
// ceiling and before anything is allocated; the count stops past the ceiling, so a refusal costs
// at most that many rows whatever the key times. A grid over the ceiling is resampled at the rate
// whose grid points (at most width * rate + 3, more than its rows) fit, down to viewer_min_rate;
// lower, the frames are refused (too_many_rows).
grid_error frames_grid(const recording& rec, resampler& rs, double& rate,
                       std::uint64_t max_frame_bytes) {
    const std::uint64_t max_rows = max_frame_bytes / (4 * (rs.curves().size() + 1));
    const grid_error grid = rs.set_grid(rate, std::nullopt, std::nullopt, max_rows);
    if (grid != grid_error::too_many_rows || max_rows < 4) return grid;
    // Both ends exist and are finite: set_grid counted points between them.
    const summary& s = rec.summary();
    const double width = static_cast<double>(*s.duration) - static_cast<double>(*s.start);
    const double lowered = std::max(static_cast<double>(max_rows - 3) / width, viewer_min_rate);
    if (lowered >= rate) return grid;
    const grid_error fitted = rs.set_grid(lowered, std::nullopt, std::nullopt, max_rows);
    if (fitted == grid_error::none) rate = lowered;
    return fitted;
}

// The timeline's events as measure() sends them, each kind into the collector event_rows reads
// (the rows `inputanim metrics --events pinch` and `--events fixations` print), up to
// viewer_max_events of a kind: those after are counted by the metrics alone.
struct timeline_events final : metrics_sink {
    event_collector pinches{event_kind::pinch};
    event_collector fixations{event_kind::fixations};

    void pinch(side s, const grid_interval& g) override {
        if (pinches.hand_events.size() < viewer_max_events) pinches.pinch(s, g);
    }
    void fixation(const inputanim::fixation& f) override {
        if (fixations.fixations.size() < viewer_max_events) fixations.fixation(f);
    }
};

nlohmann::json event_list(event_collector& e) {
    nlohmann::json list = nlohmann::json::array();
    for (const fields& f : event_rows(e)) list.push_back(object_of(f));
    return list;
}

// The description's "metrics" (the object of `inputanim metrics --json` but its path), "events"
// and "metrics_note": measured on metrics_options{} like `inputanim metrics` without options, or
// null with the reason.
struct timeline_metrics {
    nlohmann::json metrics;
    nlohmann::json events;
    std::string note;
};

// Why measure() refused, for a person.
std::string measure_problem(const std::error_code& ec, const recording& rec,
                            const metrics_options& o) {
    if (ec == grid_error::too_many_rows) {
        const summary& s = rec.summary();
        return "no metrics: more than " + std::to_string(o.max_samples) + " samples at " +
               number_text(o.rate) + " per second from " +
               number_text(double{s.start.value_or(0.0f)}) + " to " +
               number_text(double{s.duration.value_or(0.0f)}) + " s";
    }
    if (ec == grid_error::bad_time) return "no metrics: the recording's key times are not finite";
    if (ec == metrics_error::shared_times) {
        return "no metrics: at " + number_text(o.rate) +
               " per second consecutive samples share a float32 time (key times this far from 0 "
               "are too coarse)";
    }
    return "no metrics: " + ec.message();
}

timeline_metrics measure_timeline(const recording& rec, held_bytes bytes, bool valid,
                                  std::uint64_t max_samples) {
    metrics_options options;
    options.max_samples = max_samples;
    recording_metrics m;
    timeline_events events;
    std::error_code ec;
    timeline_metrics out;
    if (const std::error_code io = bytes.run([&] { ec = measure(rec, options, m, &events); })) {
        out.note = "no metrics: the file could not be read: " + io.message();
        return out;
    }
    if (ec) {
        out.note = measure_problem(ec, rec, options);
        return out;
    }
    out.metrics = metrics_json(m);
    out.metrics["measured_with"] = metrics_options_json(options);
    out.events = {{event_kind_name(event_kind::pinch), event_list(events.pinches)},
                  {event_kind_name(event_kind::fixations), event_list(events.fixations)}};
    const auto add_note = [&](const std::string& n) {
        out.note += (out.note.empty() ? "" : "; ") + n;
    };
    if (!valid) {
        add_note(
            "measured although the file is invalid (as inputanim metrics --level structure "
            "measures it)");
    }
    const auto listed = [&](const char* kind, std::size_t shown, std::uint64_t all) {
        if (shown < all) {
            add_note("the timeline shows the first " + std::to_string(shown) + " " + kind + " of " +
                     std::to_string(all));
        }
    };
    listed("pinches", out.events["pinch"].size(),
           (m.hands[0] ? m.hands[0]->pinches : 0) + (m.hands[1] ? m.hands[1]->pinches : 0));
    listed("fixations", out.events["fixations"].size(), m.gaze ? m.gaze->fixations : 0);
    return out;
}

}  // namespace

held_bytes playable_bytes(const loaded_recording& loaded) {
    const whole_input& whole = loaded.whole();
    // What was read before the damage is in the storage.
    return whole.invalid ? held_bytes::in_memory(whole.read_before) : loaded.held();
}

std::string playable_note(const whole_input& whole) {
    if (whole.io)
        return "the recording could not be read: " + whole.io.message() + ": nothing to play";
    if (!whole.invalid) return {};
    if (whole.read_before.empty()) return "the recording could not be read whole: nothing to play";
    // A structural error is placed by prepare_recording, in the recording's own bytes.
    if (whole.invalid.code != errc::bad_compression) return {};
    return "the gzip stream is damaged at compressed byte " + std::to_string(whole.invalid.offset) +
           ": the " + std::to_string(whole.read_before.size()) +
           " recording bytes inflated before it play";
}

viewer_recording prepare_recording(std::string_view name, held_bytes held, const report& rep,
                                   std::uint64_t file_bytes,
                                   std::optional<std::uint64_t> compressed_bytes,
                                   const validate_options& how, double rate,
                                   std::uint64_t max_frame_bytes, std::uint64_t max_samples,
                                   std::string_view frames_url, std::string_view note) {
    viewer_recording out;
    const std::span<const std::byte> bytes = held.span();
    const bool mapped = held.mapped();
    recording rec;
    error structural;
    const std::error_code io = held.run([&] {
        structural = rec.open(bytes, {how.layout, how.limits});
    });

    nlohmann::json curves = nlohmann::json::array();
    nlohmann::json keys = nlohmann::json::array();
    nlohmann::json omitted = nlohmann::json::array();
    nlohmann::json markers = nlohmann::json::array();
    resampler rs(rec);
    grid_error grid = grid_error::no_keys;
    const double asked = rate;
    if (!io) {
        for (const curve_view& c : rec.curves()) {
            if (named_invalid(rep, c)) {
                omitted.push_back(c.path());
            } else {
                rs.select(c.path());
            }
        }
        for (const curve_id id : rs.curves()) {
            curves.push_back(curve_path(id));
            keys.push_back(rec.find(id)->size());
        }
        // Markers are only walked in a file whose structure is whole.
        if (!structural) {
            const std::error_code marker_io = held.run([&] {
                for (const marker_view& m : rec.markers()) {
                    markers.push_back({{"time", json_number(m.time)}, {"name", m.name}});
                }
            });
            if (marker_io) markers = nlohmann::json::array();
        }
        grid = frames_grid(rec, rs, rate, max_frame_bytes);
    }
    const std::uint64_t rows = grid == grid_error::none ? rs.row_count() : 0;
    const std::size_t columns = rs.curves().size() + 1;
    std::vector<float> row(columns);
    std::uint64_t done = 0;
    // Writes the rows from `at` on.
    const auto sample_into = [&](char* at) {
        while (const std::optional<float> t = rs.next(std::span(row).subspan(1))) {
            row[0] = *t;
            put_row(at, row);
            at += columns * 4;
            ++done;
        }
    };
    // A mapped file is sampled first, under the guard: a page cut off leaves no frames, which the
    // description says. Bytes in memory cannot fail: they are sampled once the description is
    // written, straight into the bundle when there is one (no second copy of the frames).
    std::error_code sample_io;
    if (mapped && rows > 0) {
        out.frames.resize(rows * columns * 4);
        sample_io = held.run([&] { sample_into(out.frames.data()); });
        if (sample_io) out.frames.clear();
    }

    std::string why(note);
    const auto add_why = [&](const std::string& n) { why += (why.empty() ? "" : "; ") + n; };
    if (io || sample_io) {
        why = "the file could not be read: " + (io ? io : sample_io).message();
    } else if (structural) {
        add_why("the structure breaks at byte " + std::to_string(structural.offset) +
                ": only the curves before it are shown");
    } else if (!omitted.empty()) {
        add_why("the curve with the invalid keyframe is left out; the other curves play");
    }
    if (!io) {
        const summary& s = rec.summary();
        const std::string span = "from " + number_text(double{s.start.value_or(0.0f)}) + " to " +
                                 number_text(double{s.duration.value_or(0.0f)}) + " s";
        if (grid == grid_error::no_keys) {
            add_why("no curve has a keyframe: nothing to play");
        } else if (grid == grid_error::bad_time) {
            add_why("no frames: the recording's key times are not finite");
        } else if (grid == grid_error::too_many_rows) {
            out.frames_refused = true;
            add_why("no frames: " + span + ", the frames would pass their ceiling of " +
                    std::to_string(max_frame_bytes >> 20) + " MiB even at " +
                    number_text(viewer_min_rate) + " per second (more than " +
                    std::to_string(max_frame_bytes / (4 * columns)) + " rows of " +
                    std::to_string(columns) + " columns)");
        } else if (rate != asked) {
            add_why("resampled at " + number_text(rate) + " per second instead of " +
                    number_text(asked) + " so that the frames stay within " +
                    std::to_string(max_frame_bytes >> 20) + " MiB");
        }
        if (rows > 0 && rs.row_count() < rs.point_count()) {
            add_why("key times this far from 0 are coarser than a frame: the " +
                    std::to_string(rs.point_count()) + " grid points " + span + " fall on " +
                    std::to_string(rows) + " distinct float32 times, one row each");
        }
    }
    timeline_metrics measured;
    if (io) {
        measured.note = "no metrics: the file could not be read";
    } else if (structural) {
        measured.note =
            "no metrics: the structure breaks at byte " + std::to_string(structural.offset);
    } else {
        measured = measure_timeline(rec, held, rep.valid(), max_samples);
    }
    nlohmann::json description = {
        {"name", name},
        {"rate", rate},
        {"frames", !mapped              ? rows
                   : out.frames.empty() ? 0
                                        : done},
        {"start", rows > 0 ? json_number(rs.row_time(0)) : 0.0},
        {"curves", std::move(curves)},
        // A pose whose curves have no keys (a joint never seen) is not drawn, as MRTK has none.
        {"keys", std::move(keys)},
        {"omitted", std::move(omitted)},
        {"markers", std::move(markers)},
        {"report", report_json(rep, how, file_bytes, compressed_bytes)},
        {"note", why},
        {"error", out.frames_refused ? nlohmann::json("frames_too_large") : nlohmann::json()},
        {"metrics", std::move(measured.metrics)},
        {"events", std::move(measured.events)},
        {"metrics_note", std::move(measured.note)},
        {"frames_url", frames_url},
    };
    add_path(description["report"], name);
    out.description = json_text(description);
    if (!mapped) {
        std::string& into = frames_url.empty() ? out.bundle : out.frames;
        // The bundle: a little-endian uint32 length, the description, zero bytes up to a
        // multiple of four, then the frames.
        if (frames_url.empty()) {
            const auto length = static_cast<std::uint32_t>(out.description.size());
            for (int b = 0; b < 4; ++b) into += static_cast<char>((length >> (8 * b)) & 0xff);
            into += out.description;
            into.append((4 - into.size() % 4) % 4, '\0');
        }
        const std::size_t at = into.size();
        into.resize(at + rows * columns * 4);
        sample_into(into.data() + at);
    }
    return out;
}

std::string_view viewer_missing_page() {
    return "<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>inputanim</title></head>"
           "<body><h1>The viewer page was not built</h1><p>This inputanim was built without "
           "Node.js and npm. Install them (Debian: <code>apt-get install nodejs npm</code>), "
           "then configure and build again: the build bundles the page from web/ with "
           "<code>npm ci</code> and esbuild.</p><p>POST /validate still validates uploads.</p>"
           "</body></html>\n";
}

std::string_view viewer_build_hint() {
    return "the viewer page was not built into this inputanim: install Node.js and npm (Debian: "
           "apt-get install nodejs npm), then run cmake again and rebuild (the build bundles "
           "web/ with npm ci and esbuild; docs/VIEWER.md)";
}

viewer_resource find_viewer_resource(const viewer_site* site, std::string_view path) {
    using kind = viewer_resource::kind;
    if (path == "/" || path == "/index.html") return {kind::page, 0, {}};
    if (path == "/api/compare") return {kind::comparison, 0, {}};
    constexpr std::string_view api = "/api/recordings";
    if (!path.starts_with(api)) return {};
    const std::size_t count = site != nullptr ? site->recordings.size() : 0;
    if (path == api) return {kind::list, 0, {}};
    std::string_view rest = path.substr(api.size());
    if (!rest.starts_with('/')) return {};
    rest.remove_prefix(1);
    kind what = kind::description;
    for (const auto& [suffix, k] : {std::pair{std::string_view("/frames"), kind::frames},
                                    std::pair{std::string_view("/export.glb"), kind::export_glb}}) {
        if (rest.ends_with(suffix)) {
            rest.remove_suffix(suffix.size());
            what = k;
            break;
        }
    }
    std::size_t index = 0;
    const auto [end, err] = std::from_chars(rest.data(), rest.data() + rest.size(), index);
    if (rest.empty() || err != std::errc{} || end != rest.data() + rest.size() || index >= count) {
        return {kind::missing, count, rest};
    }
    return {what, index, {}};
}

std::optional<response> viewer_get(const viewer_site* site, const viewer_resource& found) {
    using kind = viewer_resource::kind;
    response r;
    switch (found.what) {
        case kind::none:
        case kind::export_glb:
            return std::nullopt;
        case kind::page: {
            const std::string_view page = viewer_page();
            r.lasting_body = page.empty() ? viewer_missing_page() : page;
            r.content_type = "text/html; charset=utf-8";
            return r;
        }
        case kind::list: {
            nlohmann::json list = nlohmann::json::array();
            const std::size_t count = site != nullptr ? site->recordings.size() : 0;
            for (std::size_t i = 0; i < count; ++i) {
                list.push_back({{"index", i},
                                {"name", site->names[i]},
                                {"description", "/api/recordings/" + std::to_string(i)}});
            }
            r.body = json_text(list);
            return r;
        }
        case kind::missing:
            r.status = 404;
            r.body =
                json_text({{"status", 404},
                           {"error", "not_found"},
                           {"message", "no recording " + std::string(found.asked) + " (there are " +
                                           std::to_string(found.index) + ")"}});
            return r;
        case kind::description:
            r.body = site->recordings[found.index].description;
            return r;
        case kind::comparison:
            // Without --compare, null: the page asks whichever way it was started, and a 404
            // would be an error in the browser's console.
            if (site == nullptr || site->comparison.empty()) {
                r.body = "null\n";
                return r;
            }
            r.lasting_body = site->comparison;
            return r;
        case kind::frames:
            r.lasting_body = site->recordings[found.index].frames;
            r.content_type = "application/octet-stream";
            return r;
    }
    return std::nullopt;
}

std::error_code viewer_compare(compared_bytes a, std::string_view a_description, compared_bytes b,
                               const compare_tolerances& tolerance, std::string& out) {
    const nlohmann::json frames = nlohmann::json::parse(a_description);
    const double rate = frames.at("rate").get<double>();
    const double start = frames.at("start").get<double>();
    const auto count = frames.at("frames").get<std::uint64_t>();
    recording ra;
    recording rb;
    error structural_a;
    error structural_b;
    const std::array<std::span<const std::byte>, 2> regions = {a.bytes, b.bytes};
    if (guarded_each(regions, [&] {
            structural_a = ra.open(a.bytes, {a.layout, {}});
            structural_b = rb.open(b.bytes, {b.layout, {}});
        }) != regions.size()) {
        return std::make_error_code(std::errc::io_error);
    }
    if (structural_a || structural_b) return std::make_error_code(std::errc::invalid_argument);
    compare_options options;
    options.rate = rate;
    // A's frames, so that row i is frame i; the rows are bounded by A's frames.
    options.window.from = start;
    options.window.until = start + (count > 0 ? static_cast<double>(count - 1) / rate : 0.0);
    options.tolerance = tolerance;
    options.max_rows = count;
    nlohmann::json time = nlohmann::json::array();
    nlohmann::json position = nlohmann::json::array();
    nlohmann::json angle = nlohmann::json::array();
    const auto value = [](double v) {
        return std::isnan(v) ? nlohmann::json() : nlohmann::json(json_number(v));
    };
    comparison c;
    std::error_code ec;
    const auto each_row = [&](const row_errors& row) {
        time.push_back(json_number(row.time));
        position.push_back(value(row.position));
        angle.push_back(value(row.angle));
    };
    // A fault leaves compare() by a jump, losing what it held: `inputanim view` then exits.
    if (guarded_each(regions, [&] { ec = compare(ra, rb, options, c, each_row); }) !=
        regions.size()) {
        return std::make_error_code(std::errc::io_error);
    }
    if (ec) return ec;
    nlohmann::json first;
    for (const motion_difference& m : c.motion) {
        if (m.first_exceeded &&
            (first.is_null() || *m.first_exceeded < first["time"].get<float>())) {
            first = {{"name", m.name},
                     {"kind", error_kind_name(m.kind)},
                     {"time", json_number(*m.first_exceeded)},
                     {"error", json_number(m.first_exceeded_error)}};
        }
    }
    out = json_text({{"rate", rate},
                     {"start", json_number(start)},
                     {"tolerance", {{"position", tolerance.position}, {"angle", tolerance.angle}}},
                     {"same", c.same()},
                     {"first_exceeded", std::move(first)},
                     {"time", std::move(time)},
                     {"position", std::move(position)},
                     {"angle", std::move(angle)}});
    return {};
}

export_job::export_job(const viewer_site::source& source) : source_(source) {
    const std::span<const std::byte> bytes = source.bytes;
    const auto reading = [&](auto&& step) { return source.loaded.run(step); };
    error structural;
    if (reading([&] { structural = rec_.open(bytes, {source.layout, {}}); })) {
        refused_ = error_response(500, "io_error", "the recording could not be read again");
        return;
    }
    if (structural) {
        refused_ = error_response(422, "invalid", "the recording's structure is not sound");
        return;
    }
    exporter_.emplace(rec_, export_options{});
    export_result planned;
    if (reading([&] { planned = exporter_->plan(); })) {
        refused_ = error_response(500, "io_error", "the recording could not be read again");
        return;
    }
    if (planned.error) {
        const bool over = planned.error == export_error::too_large ||
                          planned.error == export_error::glb_too_large;
        refused_ = error_response(
            over ? 413 : 422, over ? "too_large" : "cannot_export",
            tools::describe_export_refusal(planned, export_options{}, viewer_export_names).message);
        return;
    }
    if (planned.buffer_bytes > export_max_held_bytes) {
        refused_ = error_response(
            413, "too_large",
            "the export would hold " + std::to_string(planned.buffer_bytes) +
                " bytes while it is sent (its JSON: the markers), more than " +
                std::to_string(export_max_held_bytes) + "; export it with `inputanim export`");
        return;
    }
    if (exporter_->prepare()) {
        refused_ = error_response(503, "out_of_memory",
                                  "the export's buffers could not be allocated; retry later");
        return;
    }
    size_ = planned.size;
}

export_job::~export_job() = default;

std::span<const std::byte> export_job::next(std::error_code& io) noexcept {
    std::span<const std::byte> piece;
    const auto step = [&] { piece = exporter_->next(); };
    io = source_.loaded.run(step);
    return io ? std::span<const std::byte>{} : piece;
}

namespace {

// The bundle (viewer_recording::bundle) with `key` added to its description.
std::string with_description_field(const std::string& bundle, std::string_view key,
                                   nlohmann::json value) {
    std::uint32_t length = 0;
    for (int i = 3; i >= 0; --i) length = (length << 8) | static_cast<unsigned char>(bundle[i]);
    nlohmann::json description = nlohmann::json::parse(bundle.substr(4, length));
    description[std::string(key)] = std::move(value);
    const std::size_t frames = (4 + std::size_t{length} + 3) / 4 * 4;
    std::string text = json_text(description);
    std::string out;
    for (int i = 0; i < 4; ++i) out += static_cast<char>((text.size() >> (8 * i)) & 0xff);
    out += text;
    out.resize((out.size() + 3) / 4 * 4, '\0');
    out.append(bundle, frames);
    return out;
}

}  // namespace

response viewer_upload(std::string_view name, std::span<const std::byte> kept, bool gzip,
                       const report& rep, std::uint64_t recording_bytes,
                       std::optional<std::uint64_t> compressed_bytes, const validate_options& how,
                       const viewer_site* site, std::optional<std::size_t> compare_with) {
    loaded_recording loaded;
    held_bytes bytes = held_bytes::in_memory(kept);
    std::string note;
    if (gzip) {
        // The front door copies the body into an anonymous in-memory file, which it maps and
        // inflates (into memory) as it does a .bin.gz on disk. A stream damaged or cut short
        // gives what was inflated before the damage (playable_note says so).
        loaded.load_bytes(kept, how);
        bytes = playable_bytes(loaded);
        note = playable_note(loaded.whole());
    }
    viewer_recording prepared = prepare_recording(
        name, bytes, rep, recording_bytes, compressed_bytes, how, viewer_default_rate,
        viewer_max_upload_frame_bytes, viewer_max_upload_samples, "", note);
    response r;
    // Still the bundle, with the report and the metrics: the page shows them and the reason.
    if (prepared.frames_refused) r.status = 422;
    r.body = std::move(prepared.bundle);
    if (site != nullptr && compare_with && !prepared.frames_refused) {
        const viewer_site::source& a = site->sources[*compare_with];
        std::string comparison;
        const std::error_code ec =
            viewer_compare({a.bytes, a.layout}, site->recordings[*compare_with].description,
                           {bytes.span(), how.layout}, site->tolerance, comparison);
        r.body =
            ec ? with_description_field(r.body, "comparison_error",
                                        ec == std::errc::invalid_argument
                                            ? "the structure of one recording is not sound"
                                            : ec.message())
               : with_description_field(r.body, "comparison", nlohmann::json::parse(comparison));
    }
    r.content_type = "application/vnd.inputanim.view";
    return r;
}

namespace {

// A walk of `archive` from its start to the member of that ordinal (which it is then on); `ec`
// when the archive cannot be opened or ends before it.
archive_reader walk_to(input& archive, const archive_limits& budgets, std::uint64_t ordinal,
                       std::error_code& ec) {
    archive_reader reader = archive_reader::open(archive, budgets, ec);
    if (ec) return reader;
    archive_member m;
    while (reader.next(m)) {
        if (m.ordinal == ordinal) return reader;
    }
    ec = std::make_error_code(std::errc::no_such_file_or_directory);
    return reader;
}

response member_unreadable(const std::error_code& ec) {
    return error_response(503, "out_of_memory",
                          "the member could not be read: " + ec.message() + "; retry later");
}

}  // namespace

response viewer_member_upload(std::string_view name, std::string_view member,
                              std::vector<std::byte> body, const validate_options& how,
                              const archive_limits& budgets) {
    std::error_code ec;
    input archive = input::from_bytes(body, ec);
    std::vector<std::byte>().swap(body);
    if (ec) {
        return error_response(503, "out_of_memory",
                              "the archive could not be held: " + ec.message() + "; retry later");
    }
    // The last member of that name, as extracting the archive would leave it: one walk of the
    // headers (a zip's directory).
    error stopped;
    const std::optional<archive_member> found = find_member(archive, member, budgets, stopped, ec);
    if (ec == std::errc::not_enough_memory) return member_unreadable(ec);
    if (ec) {
        return error_response(
            422, "not_an_archive",
            "the body is no tar or zip archive this server reads: " + ec.message());
    }
    if (!found) {
        std::string message = "the archive holds no member named " + std::string(member);
        if (stopped) {
            message += " up to where its walk stopped: " + std::string(error_name(stopped.code)) +
                       " " + stopped.message();
        }
        return error_response(422, "no_such_member", std::move(message));
    }
    if (found->kind != member_kind::file) {
        return error_response(422, "not_a_file",
                              "the member " + std::string(member) + " is a " +
                                  std::string(member_kind_name(found->kind)) + ", not a file");
    }
    // Walked again to it: its verdict, and its bytes to play.
    archive_reader reader = walk_to(archive, budgets, found->ordinal, ec);
    if (ec) return member_unreadable(ec);
    std::vector<std::byte> held;
    const file_check c = validate_member(reader, how, held);
    if (c.io) return member_unreadable(c.io);
    input in;
    archive_reader again;
    if (!held.empty()) {
        // Read through whole when it was checked: read as the same bytes loose (a .bin.gz
        // inflated).
        in = input::from_bytes(held, ec);
        std::vector<std::byte>().swap(held);
    } else if (!reader.member_bytes().empty()) {
        // In place: a part of the archive's copy.
        in = reader.member(ec);
    } else {
        // Checked as a stream (past whole_member_bytes, or damaged): read through again.
        again = walk_to(archive, budgets, found->ordinal, ec);
        if (!ec) in = again.member(ec);
    }
    if (ec) return member_unreadable(ec);
    loaded_recording loaded;
    const whole_input& whole = loaded.load(std::move(in), how);
    // The archive's copy is in memory, which no other process can cut short: read as bytes in
    // memory (the frames in the answer's bundle).
    viewer_recording prepared = prepare_recording(
        std::string(name) + "/" + std::string(member),
        held_bytes::in_memory(playable_bytes(loaded).span()), c.rep, c.bytes, c.compressed_bytes,
        how, viewer_default_rate, viewer_max_upload_frame_bytes, viewer_max_upload_samples, "",
        playable_note(whole));
    response r;
    if (prepared.frames_refused) r.status = 422;
    r.body = std::move(prepared.bundle);
    r.content_type = "application/vnd.inputanim.view";
    return r;
}

}  // namespace inputanim::http

namespace inputanim::http::detail {

// The export's body as it is made: each piece made on a worker, then written, so that a slow
// client holds one piece and an export never holds a connection's strand while it evaluates.
net::awaitable<bool> server::send_export(connection& c, answer& a, unsigned version,
                                         bool keep_alive, bool head) {
    http::response<http::buffer_body> res{static_cast<http::status>(a.status), version};
    res.set(http::field::server, server_name);
    res.set(http::field::content_type, a.content_type);
    res.keep_alive(keep_alive && !a.body_unread && !state_.stopping);
    res.content_length(a.job->size());
    res.body().data = nullptr;
    res.body().more = true;
    http::response_serializer<http::buffer_body> serializer{res};
    beast::error_code ec;
    c.stream.expires_after(config_.timeout);
    co_await http::async_write_header(c.stream, serializer, to(ec));
    if (ec) co_return false;
    if (head) co_return res.keep_alive();
    for (;;) {
        std::error_code io;
        std::span<const std::byte> piece;
        try {
            piece = co_await net::co_spawn(
                workers_.executor(),
                [&]() -> net::awaitable<std::span<const std::byte>> { co_return a.job->next(io); },
                net::use_awaitable);
        } catch (const std::exception&) {
            io = std::make_error_code(std::errc::not_enough_memory);
        }
        if (io) {
            // The status is sent: the body can only be cut short, and the connection closed.
            std::cerr << "inputanim serve: an export could not be finished: " << io.message()
                      << '\n';
            co_return false;
        }
        res.body().data = const_cast<std::byte*>(piece.data());
        res.body().size = piece.size();
        res.body().more = !piece.empty();
        c.stream.expires_after(config_.timeout);
        co_await http::async_write(c.stream, serializer, to(ec));
        if (ec == http::error::need_buffer) ec = {};
        if (ec) co_return false;
        if (piece.empty()) break;
    }
    co_return res.keep_alive();
}

// GET /api/recordings/N/export.glb: one of the places of POST /view, and the plan made on a
// worker (it reads the whole recording's times and keys once).
net::awaitable<answer> server::export_recording(std::size_t index) {
    answer a;
    if (++state_.viewing > viewer_max_uploads) {
        --state_.viewing;
        co_return error_answer(503, "busy",
                               "the server is answering its maximum number of uploads to view "
                               "and exports (" +
                                   std::to_string(viewer_max_uploads) + "); retry later");
    }
    upload_place place(state_.viewing);
    try {
        const viewer_site::source& source = config_.site->sources[index];
        std::shared_ptr<export_job> job = co_await net::co_spawn(
            workers_.executor(),
            [&]() -> net::awaitable<std::shared_ptr<export_job>> {
                co_return std::make_shared<export_job>(source);
            },
            net::use_awaitable);
        if (job->refused()) {
            a.take(*job->refused());
        } else {
            a.job = std::move(job);
            a.content_type = "model/gltf-binary";
        }
    } catch (const std::bad_alloc&) {
        a = error_answer(503, "out_of_memory", "the export could not be allocated; retry later");
    }
    a.place = std::move(place);
    co_return a;
}

// POST /view?member=NAME of an archive: the body held whole (up to the byte ceiling), then the
// member opened and answered on a worker.
net::awaitable<answer> server::view_member(body_reading& b, std::vector<std::byte> held,
                                           const std::string& name, const std::string& member) {
    if (std::optional<answer> failed = co_await hold_body(b, held, name)) {
        co_return std::move(*failed);
    }
    co_return co_await answer_on(workers_.executor(), [&] {
        return viewer_member_upload(name, member, std::move(held), config_.how, config_.archives);
    });
}

}  // namespace inputanim::http::detail
