#include "index/index_row.hpp"

#include <algorithm>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "index/index_pool.hpp"
#include "os/text.hpp"
#include "report/report_json.hpp"

namespace inputanim::tools {

namespace detail {

namespace {

// A name that is not UTF-8 is kept exactly beside it, as hex.
void put_hex(json_object_text& fields, std::string_view name, std::string_view bytes) {
    if (!valid_utf8(bytes)) fields.text(name, hex_bytes(bytes));
}

}  // namespace

void from_report(const row_source&, std::string_view, json_object_text&) {
    // Nothing to write: make_row begins the row with the report's fields that such columns name.
}

void path_text(const row_source& from, std::string_view name, json_object_text& fields) {
    fields.text(name, from.path);
}

void path_hex(const row_source& from, std::string_view name, json_object_text& fields) {
    put_hex(fields, name, from.path);
}

void archive_text(const row_source& from, std::string_view name, json_object_text& fields) {
    if (!from.archive.empty()) fields.text(name, from.archive);
}

void archive_hex(const row_source& from, std::string_view name, json_object_text& fields) {
    if (from.member) put_hex(fields, name, from.archive);
}

void member_text(const row_source& from, std::string_view name, json_object_text& fields) {
    if (from.member) {
        fields.text(name, from.member->name);
    } else if (!from.archive.empty()) {
        fields.null(name);
    }
}

void member_hex(const row_source& from, std::string_view name, json_object_text& fields) {
    if (from.member) put_hex(fields, name, from.member->name);
}

void ordinal(const row_source& from, std::string_view name, json_object_text& fields) {
    if (!from.archive.empty()) fields.integer(name, from.ordinal);
}

void member_offset(const row_source& from, std::string_view name, json_object_text& fields) {
    if (!from.member) return;
    const std::optional<std::uint64_t>& at = from.member->data_offset;
    if (at) {
        fields.count(name, *at);
    } else {
        fields.null(name);
    }
}

void member_size(const row_source& from, std::string_view name, json_object_text& fields) {
    if (from.member) fields.count(name, from.member->size);
}

store_source::store_source(const file_result& result, std::string_view options,
                           std::string_view report, std::int64_t indexed_at_ns)
    : result(result),
      options(options),
      report(report),
      indexed_at_ns(indexed_at_ns),
      error(result.outcome != file_outcome::unreadable && !result.rep.valid()
                ? error_json(result.rep.error)
                : nlohmann::json()) {}

namespace stored {

namespace {

using value = std::optional<sql_value>;

value integer(std::int64_t v) {
    return sql_value(v);
}

// A count SQLite keeps as its signed 64-bit integer.
value count(std::uint64_t v) {
    return sql_value(static_cast<std::int64_t>(v));
}

value real(double v) {
    return sql_value(v);
}

value text(std::string v) {
    return sql_value(std::move(v));
}

value text_of(std::string_view v) {
    return sql_value(v);
}

// The summary of a file that was read; none for one that could not be.
const summary* summary_of(const store_source& from) {
    return from.result.outcome == file_outcome::unreadable ? nullptr : &from.result.rep.summary;
}

// The summary when the header could be read (it has a version name).
const summary* header_of(const store_source& from) {
    const summary* s = summary_of(from);
    return s && !version_name(s->edition, s->major, s->minor).empty() ? s : nullptr;
}

// The stat of a file that was read.
const file_stamp* stamp_of(const store_source& from) {
    return summary_of(from) && from.result.stamp ? &*from.result.stamp : nullptr;
}

// The metrics of a file that was read and measured.
const recording_metrics* metrics_of(const store_source& from) {
    return summary_of(from) && from.result.metrics ? &*from.result.metrics : nullptr;
}

// The metrics of the hand `hand` (0 left, 1 right), when the file has its tracked curve with keys.
const hand_metrics* hand_of(const store_source& from, std::size_t hand) {
    const recording_metrics* m = metrics_of(from);
    return m && m->hands[hand] ? &*m->hands[hand] : nullptr;
}

value path_length(const store_source& from, std::size_t hand) {
    const hand_metrics* h = hand_of(from, hand);
    return h ? real(h->motion.path_length) : std::nullopt;
}

value pinches(const store_source& from, std::size_t hand) {
    const hand_metrics* h = hand_of(from, hand);
    return h ? count(h->pinches) : std::nullopt;
}

value coverage(const store_source& from, std::size_t hand) {
    const hand_metrics* h = hand_of(from, hand);
    return h ? real(h->coverage) : std::nullopt;
}

const gaze_metrics* gaze_of(const store_source& from) {
    const recording_metrics* m = metrics_of(from);
    return m && m->gaze ? &*m->gaze : nullptr;
}

// The field `key` of an invalid recording's error object, when it is not null.
const nlohmann::json* error_field(const store_source& from, std::string_view key) {
    if (from.error.is_null()) return nullptr;
    const auto it = from.error.find(key);
    return it != from.error.end() && !it->is_null() ? &*it : nullptr;
}

value error_text(const store_source& from, std::string_view key) {
    const nlohmann::json* v = error_field(from, key);
    return v ? text_of(v->get_ref<const std::string&>()) : std::nullopt;
}

value error_integer(const store_source& from, std::string_view key) {
    const nlohmann::json* v = error_field(from, key);
    return v ? integer(v->get<std::int64_t>()) : std::nullopt;
}

}  // namespace

value path(const store_source& from) {
    return sql_value(sql_path{from.result.path});
}

value valid(const store_source& from) {
    return integer(summary_of(from) && from.result.rep.valid());
}

value bytes(const store_source& from) {
    return summary_of(from) ? count(from.result.bytes) : std::nullopt;
}

value version(const store_source& from) {
    const summary* s = header_of(from);
    return s ? text_of(version_name(s->edition, s->major, s->minor)) : std::nullopt;
}

value layout(const store_source& from) {
    const summary* s = header_of(from);
    return s ? text_of(layout_name(s->layout)) : std::nullopt;
}

value has_camera(const store_source& from) {
    const summary* s = header_of(from);
    return s ? integer(s->blocks.camera) : std::nullopt;
}

value has_hands(const store_source& from) {
    const summary* s = header_of(from);
    return s ? integer(s->blocks.hands) : std::nullopt;
}

value has_gaze(const store_source& from) {
    const summary* s = header_of(from);
    return s ? integer(s->blocks.gaze) : std::nullopt;
}

value curves(const store_source& from) {
    const summary* s = summary_of(from);
    return s ? integer(s->curves) : std::nullopt;
}

value keyframes(const store_source& from) {
    const summary* s = summary_of(from);
    return s ? count(s->keyframes) : std::nullopt;
}

value markers(const store_source& from) {
    const summary* s = summary_of(from);
    return s && s->markers ? integer(*s->markers) : std::nullopt;
}

// The float as the line spells it (json_number), not the double it widens to.
value start(const store_source& from) {
    const summary* s = summary_of(from);
    return s && s->start ? real(json_number(*s->start)) : std::nullopt;
}

value duration(const store_source& from) {
    const summary* s = summary_of(from);
    return s && s->duration ? real(json_number(*s->duration)) : std::nullopt;
}

value warnings_found(const store_source& from) {
    return summary_of(from) ? count(from.result.rep.warnings_found) : std::nullopt;
}

// A file that could not be read has the code of why (unreadable, io_error) and its message.
value error_code(const store_source& from) {
    if (!summary_of(from)) return text_of(from.result.failure_code);
    return error_text(from, "code");
}

value error_offset(const store_source& from) {
    return from.error.is_null() ? std::nullopt : count(from.result.rep.error.offset);
}

value error_place(const store_source& from) {
    return error_text(from, "place");
}

value error_curve(const store_source& from) {
    return error_text(from, "curve");
}

value error_keyframe(const store_source& from) {
    return error_integer(from, "keyframe");
}

value error_marker(const store_source& from) {
    return error_integer(from, "marker");
}

value error_limit(const store_source& from) {
    return error_text(from, "limit");
}

value error_message(const store_source& from) {
    if (!summary_of(from)) return text(from.result.failure.message());
    return error_text(from, "message");
}

// Without size and mtime a file that could not be read is read again by the next run, whatever
// its stamp.
value size(const store_source& from) {
    const file_stamp* s = stamp_of(from);
    return s ? count(s->size) : std::nullopt;
}

value mtime(const store_source& from) {
    const file_stamp* s = stamp_of(from);
    return s ? integer(s->mtime_ns) : std::nullopt;
}

value inode(const store_source& from) {
    const file_stamp* s = stamp_of(from);
    return s ? count(s->inode) : std::nullopt;
}

value checked_with(const store_source& from) {
    return text_of(from.options);
}

value report(const store_source& from) {
    return text_of(from.report);
}

value indexed_at(const store_source& from) {
    return integer(from.indexed_at_ns);
}

value left_path_length(const store_source& from) {
    return path_length(from, 0);
}

value right_path_length(const store_source& from) {
    return path_length(from, 1);
}

value left_pinches(const store_source& from) {
    return pinches(from, 0);
}

value right_pinches(const store_source& from) {
    return pinches(from, 1);
}

value left_coverage(const store_source& from) {
    return coverage(from, 0);
}

value right_coverage(const store_source& from) {
    return coverage(from, 1);
}

value fixations(const store_source& from) {
    const gaze_metrics* g = gaze_of(from);
    return g ? count(g->fixations) : std::nullopt;
}

value mean_fixation_duration(const store_source& from) {
    const gaze_metrics* g = gaze_of(from);
    return g && g->mean_fixation_duration ? real(*g->mean_fixation_duration) : std::nullopt;
}

value archive(const store_source& from) {
    if (from.result.archive.empty()) return std::nullopt;
    return sql_value(sql_path{from.result.archive});
}

value member(const store_source& from) {
    if (!from.result.member) return std::nullopt;
    return sql_value(sql_path{from.result.member->name});
}

value member_ordinal(const store_source& from) {
    return integer(from.result.ordinal);
}

value member_offset(const store_source& from) {
    const std::optional<archive_member>& m = from.result.member;
    return m && m->data_offset ? count(*m->data_offset) : std::nullopt;
}

value member_size(const store_source& from) {
    const std::optional<archive_member>& m = from.result.member;
    return m ? count(m->size) : std::nullopt;
}

}  // namespace stored

}  // namespace detail

std::string_view column_type_name(column_type t) noexcept {
    switch (t) {
        case column_type::text:
            return "text";
        case column_type::flag:
            return "flag";
        case column_type::optional_flag:
            return "optional_flag";
        case column_type::count:
            return "count";
        case column_type::number:
            return "number";
        case column_type::object:
            return "object";
    }
    return "object";
}

index_row index_row::from_text(std::string_view path, std::string text) {
    index_row row(path);
    row.text_ = std::move(text);
    return row;
}

const nlohmann::json& index_row::fields() const {
    if (!fields_) fields_ = nlohmann::json::parse(*text_);
    return *fields_;
}

nlohmann::json index_row::take_fields() && {
    if (!fields_) return nlohmann::json::parse(*text_);
    return std::move(*fields_);
}

const std::string& index_row::json_text() const {
    if (!text_) text_ = fields_->dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    return *text_;
}

namespace {

// The names of the report's fields a row keeps, sorted: the columns whose source is the report,
// and the metrics columns.
const std::vector<std::string_view>& report_field_names() {
    static const std::vector<std::string_view> names = [] {
        std::vector<std::string_view> v;
        for (const index_table_column& c : index_table) {
            if (c.field == &detail::from_report) v.push_back(c.name);
        }
        for (const index_column& c : metrics_columns) v.push_back(c.name);
        std::sort(v.begin(), v.end());
        return v;
    }();
    return names;
}

}  // namespace

index_row make_row(const row_source& from, json_object_text& report) {
    const std::vector<std::string_view>& kept = report_field_names();
    report.keep_if(
        [&](std::string_view key) { return std::binary_search(kept.begin(), kept.end(), key); });
    for (const index_table_column& c : index_table) {
        if (c.field) c.field(from, c.name, report);
    }
    std::string text;
    report.append_to(text);
    report.clear();
    return index_row::from_text(from.path, std::move(text));
}

}  // namespace inputanim::tools
