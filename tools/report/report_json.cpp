#include "report/report_json.hpp"

#include <array>
#include <charconv>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <utility>

#include "inputanim/detail/number_text.hpp"
#include "os/text.hpp"

namespace inputanim::tools {

namespace {

// A float of the summary, null when the file does not tell it.
template <class Out>
void optional_float(Out& out, std::string_view key, const std::optional<float>& v) {
    if (v) {
        out.number(key, json_number(*v));
    } else {
        out.null(key);
    }
}

// An index that is -1 for none.
template <class Out>
void index_or_null(Out& out, std::string_view key, std::int64_t index) {
    if (index >= 0) {
        out.integer(key, index);
    } else {
        out.null(key);
    }
}

}  // namespace

double json_number(float v) {
    // from_chars, not strtod: the same correctly rounded double without the locale, several
    // times faster (a table of a million events converts two million times). Every float's
    // text reads back, inf and nan included.
    char text[detail::number_chars_max];
    const std::size_t n = detail::number_chars(v, text);
    double d = 0.0;
    std::from_chars(text, text + n, d);
    return d;
}

template <class Out>
void error_fields(const error& e, Out& out) {
    const std::string_view path = e.path();
    out.text("code", error_name(e.code));
    out.count("offset", e.offset);
    out.text("place", place_name(e.place));
    if (path.empty()) {
        out.null("curve");
    } else {
        out.text("curve", path);
    }
    index_or_null(out, "keyframe", e.place == error_place::curve ? e.index : -1);
    index_or_null(out, "marker", e.place == error_place::markers ? e.index : -1);
    if (e.code == errc::limit_exceeded) {
        out.text("limit", limit_name(e.limit));
    } else {
        out.null("limit");
    }
    out.text("message", e.message());
}

template <class Out>
void warning_fields(const warning& w, Out& out) {
    out.text("code", warning_name(w.code));
    out.text("curve", w.path());
    index_or_null(out, "keyframe", w.keyframe);
    out.count("count", w.count);
    out.text("message", w.message());
}

template <class Out>
void summary_fields(const summary& s, Out& out) {
    // No version name: the header could not be read.
    const std::string_view version = version_name(s.edition, s.major, s.minor);
    if (!version.empty()) {
        out.text("version", version);
        out.text("layout", layout_name(s.layout));
        out.boolean("has_camera", s.blocks.camera);
        out.boolean("has_hands", s.blocks.hands);
        out.boolean("has_gaze", s.blocks.gaze);
    } else {
        for (const std::string_view key :
             {"version", "layout", "has_camera", "has_hands", "has_gaze"}) {
            out.null(key);
        }
    }
    out.count("curves", s.curves);
    out.count("keyframes", s.keyframes);
    if (s.markers) {
        out.count("markers", *s.markers);
    } else {
        out.null("markers");
    }
    optional_float(out, "start", s.start);
    optional_float(out, "duration", s.duration);
}

template <class Out>
void report_fields(const report& rep, std::uint64_t file_bytes, Out& out,
                   std::optional<std::uint64_t> compressed_bytes) {
    summary_fields(rep.summary, out);
    out.boolean("valid", rep.valid());
    out.count("bytes", file_bytes);
    const std::span<const warning> warnings = rep.warnings();
    out.objects("warnings", warnings.size(),
                [&](std::size_t i, Out& item) { warning_fields(warnings[i], item); });
    // The report keeps the first report::max_warnings; this counts them all.
    out.count("warnings_found", rep.warnings_found);
    if (!rep.valid()) out.object("error", [&](Out& e) { error_fields(rep.error, e); });
    if (compressed_bytes) out.count("compressed_bytes", *compressed_bytes);
}

template <class Out>
void options_fields(const validate_options& how, Out& out) {
    out.text("level", level_name(how.level));
    out.text("layout", layout_choice_name(how.layout));
    out.object("limits", [&](Out& limits) {
        // A ceiling at or above its unset value checks nothing: null.
        for (const limit_field& field : limit_fields) {
            const std::uint64_t value = field.get(how.limits);
            if (value >= field.unset) {
                limits.null(limit_name(field.kind));
            } else {
                limits.count(limit_name(field.kind), value);
            }
        }
    });
    out.integer("rules", rules_version);
}

template void error_fields(const error&, json_object_text&);
template void error_fields(const error&, json_object_value&);
template void report_fields(const report&, std::uint64_t, json_object_text&,
                            std::optional<std::uint64_t>);
template void report_fields(const report&, std::uint64_t, json_object_value&,
                            std::optional<std::uint64_t>);
template void options_fields(const validate_options&, json_object_text&);
template void options_fields(const validate_options&, json_object_value&);

nlohmann::json error_json(const error& e) {
    json_object_value out;
    error_fields(e, out);
    return std::move(out).take();
}

nlohmann::json warning_json(const warning& w) {
    json_object_value out;
    warning_fields(w, out);
    return std::move(out).take();
}

nlohmann::json summary_json(const summary& s) {
    json_object_value out;
    summary_fields(s, out);
    return std::move(out).take();
}

nlohmann::json report_json(const report& rep, const validate_options& how, std::uint64_t file_bytes,
                           std::optional<std::uint64_t> compressed_bytes) {
    json_object_value out;
    report_fields(rep, file_bytes, out, compressed_bytes);
    out.object("checked_with", [&](json_object_value& o) { options_fields(how, o); });
    return std::move(out).take();
}

void add_path(nlohmann::json& fields, std::string_view path) {
    fields["path"] = path;
    if (!valid_utf8(path)) fields["path_bytes"] = hex_bytes(path);
}

std::string json_line(std::string_view path, nlohmann::json fields) {
    add_path(fields, path);
    return fields.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

void add_member(nlohmann::json& fields, std::string_view archive, const archive_member& m) {
    // Names not UTF-8 are kept exactly beside them, as a path is.
    fields["archive"] = std::string(archive);
    if (!valid_utf8(archive)) fields["archive_bytes"] = hex_bytes(archive);
    fields["member"] = m.name;
    if (!valid_utf8(m.name)) fields["member_bytes"] = hex_bytes(m.name);
    fields["member_ordinal"] = m.ordinal;
    fields["member_offset"] = m.data_offset ? nlohmann::json(*m.data_offset) : nlohmann::json();
    fields["member_size"] = m.size;
}

nlohmann::json options_json(const validate_options& how) {
    json_object_value out;
    options_fields(how, out);
    return std::move(out).take();
}

}  // namespace inputanim::tools
