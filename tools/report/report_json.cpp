#include "report/report_json.hpp"

#include <array>
#include <charconv>
#include <limits>
#include <string>

#include "inputanim/detail/number_text.hpp"
#include "os/text.hpp"

namespace inputanim::tools {

namespace {

nlohmann::json optional_float(const std::optional<float>& v) {
    return v ? nlohmann::json(json_number(*v)) : nlohmann::json(nullptr);
}

nlohmann::json index_or_null(std::int64_t index) {
    return index >= 0 ? nlohmann::json(index) : nlohmann::json(nullptr);
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

nlohmann::json error_json(const error& e) {
    const std::string_view path = e.path();
    return {
        {"code", error_name(e.code)},
        {"offset", e.offset},
        {"place", place_name(e.place)},
        {"curve", path.empty() ? nlohmann::json(nullptr) : nlohmann::json(path)},
        {"keyframe", e.place == error_place::curve ? index_or_null(e.index) : nullptr},
        {"marker", e.place == error_place::markers ? index_or_null(e.index) : nullptr},
        {"limit", e.code == errc::limit_exceeded ? nlohmann::json(limit_name(e.limit)) : nullptr},
        {"message", e.message()},
    };
}

nlohmann::json warning_json(const warning& w) {
    return {
        {"code", warning_name(w.code)},
        {"curve", w.path()},
        {"keyframe", index_or_null(w.keyframe)},
        {"count", w.count},
        {"message", w.message()},
    };
}

nlohmann::json summary_json(const summary& s) {
    // No version name: the header could not be read.
    const std::string_view version = version_name(s.edition, s.major, s.minor);
    const bool header_read = !version.empty();
    const auto if_header = [&](nlohmann::json v) {
        return header_read ? std::move(v) : nlohmann::json(nullptr);
    };
    return {
        {"version", if_header(version)},
        {"layout", if_header(layout_name(s.layout))},
        {"has_camera", if_header(s.blocks.camera)},
        {"has_hands", if_header(s.blocks.hands)},
        {"has_gaze", if_header(s.blocks.gaze)},
        {"curves", s.curves},
        {"keyframes", s.keyframes},
        {"markers", s.markers ? nlohmann::json(*s.markers) : nlohmann::json(nullptr)},
        {"start", optional_float(s.start)},
        {"duration", optional_float(s.duration)},
    };
}

nlohmann::json report_json(const report& rep, const validate_options& how, std::uint64_t file_bytes,
                           std::optional<std::uint64_t> compressed_bytes) {
    nlohmann::json warnings = nlohmann::json::array();
    for (const warning& w : rep.warnings()) warnings.push_back(warning_json(w));

    nlohmann::json j = summary_json(rep.summary);
    j["valid"] = rep.valid();
    j["bytes"] = file_bytes;
    j["warnings"] = std::move(warnings);
    // The report keeps the first report::max_warnings; this counts them all.
    j["warnings_found"] = rep.warnings_found;
    j["checked_with"] = options_json(how);
    if (!rep.valid()) j["error"] = error_json(rep.error);
    if (compressed_bytes) j["compressed_bytes"] = *compressed_bytes;
    return j;
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
    // A ceiling at or above its unset value checks nothing: null.
    nlohmann::json limits = nlohmann::json::object();
    for (const limit_field& field : limit_fields) {
        const std::uint64_t value = field.get(how.limits);
        limits[limit_name(field.kind)] =
            value >= field.unset ? nlohmann::json(nullptr) : nlohmann::json(value);
    }
    return {
        {"level", level_name(how.level)},
        {"layout", layout_choice_name(how.layout)},
        {"limits", std::move(limits)},
        {"rules", rules_version},
    };
}

}  // namespace inputanim::tools
