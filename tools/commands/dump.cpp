// inputanim dump: every keyframe of the selected curves with all its fields, and the markers, as
// one JSON document or as CSV tables.
#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "options.hpp"
#include "reading.hpp"

namespace inputanim::cli {

namespace {

struct dump_options {
    std::string file;
    std::vector<std::string> globs;
    std::string format = "json";
    layout_choice layout = layout_choice::automatic;
    bool markers = false;
    // A gzip file or standard input is read into memory (the views need it whole): this bounds
    // it.
    std::uint64_t max_bytes = std::uint64_t{1} << 30;
};

// The fields of one keyframe, copied out of the mapping before any text is made.
struct key_fields {
    float time = 0;
    float value = 0;
    bool full = false;
    float in_tangent = 0;
    float out_tangent = 0;
    float in_weight = 0;
    float out_weight = 0;
    std::int32_t weighted_mode = 0;
};

key_fields load(const keyframe_view& k) {
    key_fields f;
    f.time = k.time();
    f.value = k.value();
    f.full = k.has_tangents();
    if (f.full) {
        f.in_tangent = k.in_tangent();
        f.out_tangent = k.out_tangent();
        f.in_weight = k.in_weight();
        f.out_weight = k.out_weight();
        f.weighted_mode = k.weighted_mode_raw();
    }
    return f;
}

// Text for stdout (common's stdout_writer) and the numbers of the two formats. Everything in it
// was copied out of the mapping, so a read fault while filling it loses nothing that needs
// cleaning up.
class output {
  public:
    output& operator<<(std::string_view text) {
        out_ << text;
        return *this;
    }
    output& operator<<(std::int64_t v) { return *this << std::string_view(std::to_string(v)); }

    // The shortest text that reads back as the same float32; JSON has no NaN or infinity.
    void json_number(float v) {
        if (std::isfinite(v)) {
            *this << number_text(v);
        } else {
            *this << "null";
        }
    }
    void csv_number(float v) {
        if (std::isnan(v)) {
            *this << "nan";
        } else if (std::isinf(v)) {
            *this << (v < 0 ? "-inf" : "inf");
        } else {
            *this << number_text(v);
        }
    }
    void flush() { out_.flush(); }

  private:
    stdout_writer out_;
};

// A JSON string; bytes that are not UTF-8 become U+FFFD.
std::string json_string(std::string_view text) {
    return nlohmann::json(text).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string version_text(const file_header& h) {
    return std::string(version_name(h.edition, h.major, h.minor));
}

void write_json(output& out, const std::string& file, const recording& rec,
                const std::vector<bool>& selected, std::string& name) {
    out << "{\"path\":" << json_string(file) << ",\"version\":\"" << version_text(rec.header())
        << "\",\"layout\":\"" << layout_name(rec.header().layout) << "\",\"curves\":[";
    bool first_curve = true;
    for (const curve_view& c : rec.curves()) {
        if (!selected[c.index]) continue;
        out << (first_curve ? "\n" : ",\n") << "{\"path\":\"" << c.path() << "\",\"kind\":\""
            << (c.kind == curve_kind::bool_curve ? "bool" : "float")
            << "\",\"pre_wrap\":" << std::int64_t{c.pre_wrap}
            << ",\"post_wrap\":" << std::int64_t{c.post_wrap} << ",\"keys\":[";
        first_curve = false;
        bool first_key = true;
        for (const keyframe_view k : c.keys) {
            const key_fields f = load(k);
            out << (first_key ? "\n{\"time\":" : ",\n{\"time\":");
            first_key = false;
            out.json_number(f.time);
            out << ",\"value\":";
            out.json_number(f.value);
            if (f.full) {
                out << ",\"in_tangent\":";
                out.json_number(f.in_tangent);
                out << ",\"out_tangent\":";
                out.json_number(f.out_tangent);
                out << ",\"in_weight\":";
                out.json_number(f.in_weight);
                out << ",\"out_weight\":";
                out.json_number(f.out_weight);
                out << ",\"weighted_mode\":" << std::int64_t{f.weighted_mode};
            }
            out << "}";
        }
        out << "]}";
    }
    out << "\n],\"markers\":[";
    bool first_marker = true;
    for (const marker_view& m : rec.markers()) {
        const float time = m.time;
        name.assign(m.name);
        out << (first_marker ? "\n{\"time\":" : ",\n{\"time\":");
        first_marker = false;
        out.json_number(time);
        out << ",\"name\":" << json_string(name) << "}";
    }
    out << "\n]}\n";
}

void write_csv_keys(output& out, const recording& rec, const std::vector<bool>& selected) {
    out << "curve,index,time,value,in_tangent,out_tangent,in_weight,out_weight,weighted_mode\n";
    for (const curve_view& c : rec.curves()) {
        if (!selected[c.index]) continue;
        std::int64_t index = 0;
        for (const keyframe_view k : c.keys) {
            const key_fields f = load(k);
            out << c.path() << "," << index++ << ",";
            out.csv_number(f.time);
            out << ",";
            out.csv_number(f.value);
            if (f.full) {
                for (const float v : {f.in_tangent, f.out_tangent, f.in_weight, f.out_weight}) {
                    out << ",";
                    out.csv_number(v);
                }
                out << "," << std::int64_t{f.weighted_mode} << "\n";
            } else {
                // Compact and bool keyframes carry no tangents, weights or mode.
                out << ",,,,,\n";
            }
        }
    }
}

void write_csv_markers(output& out, const recording& rec, std::string& name) {
    out << "index,time,name\n";
    for (const marker_view& m : rec.markers()) {
        const float time = m.time;
        name.assign(m.name);
        out << std::int64_t{m.index} << ",";
        out.csv_number(time);
        out << "," << csv_field(name) << "\n";
    }
}

// Marks the curves any glob matches. Returns the first glob that matches none, if one does.
std::optional<std::string> select_curves(const std::vector<std::string>& globs,
                                         const recording& rec, std::vector<bool>& selected) {
    selected.assign(rec.curves().size(), globs.empty());
    for (const std::string& glob : globs) {
        bool matched = false;
        for (const curve_view& c : rec.curves()) {
            if (!path_matches(glob, c.path())) continue;
            selected[c.index] = true;
            matched = true;
        }
        if (!matched) return glob;
    }
    return std::nullopt;
}

int run_dump(const dump_options& o) {
    if (o.markers && o.format != "csv") {
        std::cerr << "inputanim dump: --markers needs --format csv (the JSON document always "
                     "holds the markers)\n";
        return exit_usage;
    }
    const layout_choice layout = o.layout;
    validate_options how;
    how.layout = layout;
    how.limits.max_bytes = o.max_bytes;
    // The views need the whole recording: a gzip file or standard input is read into memory,
    // once its header passed, up to --max-bytes.
    loaded_recording whole;
    if (const std::optional<int> status = read_recording(o.file, how, whole)) return *status;
    const std::span<const std::byte> bytes = whole.bytes();
    auto rec = std::make_unique<recording>();
    error structure{};
    // Reads of a mapping that another process truncates are an I/O error, not a SIGBUS.
    std::error_code read = guarded(bytes, [&] {
        structure = rec->open(bytes, {layout, how.limits});
    });
    if (!read && structure) {
        std::cerr << "inputanim: " << printable(o.file) << ": invalid: " << error_line(structure)
                  << '\n';
        return exit_invalid;
    }
    std::vector<bool> selected;
    if (!read) {
        if (const std::optional<std::string> glob = select_curves(o.globs, *rec, selected)) {
            std::cerr << "inputanim dump: --curve '" << printable(*glob) << "' matches no curve "
                      << (names_any_curve(*glob) ? "of " + printable(o.file)
                                                 : std::string("path (such as camera.position.x)"))
                      << '\n';
            return exit_usage;
        }
        output out;
        std::string name;
        read = guarded(bytes, [&] {
            if (o.markers) {
                write_csv_markers(out, *rec, name);
            } else if (o.format == "csv") {
                write_csv_keys(out, *rec, selected);
            } else {
                write_json(out, o.file, *rec, selected, name);
            }
        });
        out.flush();
    }
    if (read) {
        std::cout.flush();
        std::cerr << "inputanim: " << printable(o.file) << ": " << read.message() << '\n';
        return finish_stdout(exit_unreadable);
    }
    return finish_stdout(exit_valid);
}

}  // namespace

command add_dump_command(CLI::App& app) {
    auto o = std::make_shared<dump_options>();
    CLI::App* cmd = app.add_subcommand(
        "dump", "Print every keyframe (all fields) of some curves, and the markers");
    add_recording_argument(*cmd, "FILE", o->file);
    CLI::Option* curve =
        cmd->add_option("--curve", o->globs,
                        "Only curves whose path matches GLOB (* within a dotted component, ** "
                        "across, ? one character); repeat for more")
            ->type_name("GLOB");
    add_format_option(*cmd, o->format, {"json", "csv"},
                      "json: one document; csv: one row per keyframe");
    cmd->add_flag("--markers", o->markers, "With --format csv: the marker table instead")
        ->excludes(curve);
    add_layout_choice_option(*cmd, o->layout);
    add_max_bytes_option(*cmd, o->max_bytes);
    return {cmd, [o] { return run_dump(*o); }};
}

}  // namespace inputanim::cli
