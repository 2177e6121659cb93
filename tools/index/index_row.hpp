// A row of `inputanim index`: what the indexer hands on for each recording or unreadable file, as
// a value, and the one table of its columns (docs/CLI.md, "index"). The command writes a row as a
// line of JSON Lines, the database keeps that line beside its own columns, and the Python package
// builds its frame's columns from the rows and the table (INDEX_COLUMNS).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include <nlohmann/json.hpp>

#include "inputanim/archive.hpp"
#include "report/json_text.hpp"

namespace inputanim::tools {

// What a column holds, which decides its type in a frame.
enum class column_type : std::uint8_t {
    // A string, or null.
    text,
    // true or false, in every row.
    flag,
    // true, false or null.
    optional_flag,
    // A whole number from 0 up, or null.
    count,
    // A number, or null.
    number,
    // A JSON object or array (warnings, error, checked_with, metrics), or null.
    object,
};

struct index_column {
    std::string_view name;
    column_type type;
};

// What a row is made from (make_row), beside the fields the file's check gave.
struct row_source {
    std::string_view path;
    // A member of an archive: the archive's name and the member. An archive whose walk stopped:
    // its name, no member. A file: neither.
    std::string_view archive;
    const archive_member* member = nullptr;
    // The row's ordinal in an archive: the member's, or the place of the entry a stopped walk
    // could not read.
    std::int64_t ordinal = -1;
};

// Where a field of a row comes from: puts the field `name` of the row made from `from` into
// `fields`, or leaves the row without it.
using row_field = void (*)(const row_source& from, std::string_view name, json_object_text& fields);

namespace detail {
// The field of that name of the report, when it has one: make_row begins the row with the
// report's fields that these columns (and the metrics columns) name, so this moves nothing.
void from_report(const row_source& from, std::string_view name, json_object_text& fields);
// The path; its bytes as hex (hex_bytes) when it is not UTF-8.
void path_text(const row_source& from, std::string_view name, json_object_text& fields);
void path_hex(const row_source& from, std::string_view name, json_object_text& fields);
// A member's, or a stopped walk's: the archive's name (the hex of a member's archive that is not
// UTF-8: a stopped walk's row has it as path_bytes).
void archive_text(const row_source& from, std::string_view name, json_object_text& fields);
void archive_hex(const row_source& from, std::string_view name, json_object_text& fields);
// The member's name (null in a stopped walk's row), and its hex when it is not UTF-8.
void member_text(const row_source& from, std::string_view name, json_object_text& fields);
void member_hex(const row_source& from, std::string_view name, json_object_text& fields);
// A member's or a stopped walk's ordinal.
void ordinal(const row_source& from, std::string_view name, json_object_text& fields);
// A member's: where its bytes lie in the archive when it holds them as they are (else null), and
// its size as the archive says.
void member_offset(const row_source& from, std::string_view name, json_object_text& fields);
void member_size(const row_source& from, std::string_view name, json_object_text& fields);
}  // namespace detail

struct file_result;

namespace detail {

// What a row of table recordings is stored from (sqlite_store::put): the file's result, the
// text of the options it was checked under (indexer::stored_options), the row's line and when it
// was written.
struct store_source {
    store_source(const file_result& result, std::string_view options, std::string_view report,
                 std::int64_t indexed_at_ns);

    const file_result& result;
    std::string_view options;
    std::string_view report;
    std::int64_t indexed_at_ns;
    // An invalid recording's error as its line has it (error_json), made once for the columns
    // that take its fields; null for a valid recording or a file that could not be read.
    nlohmann::json error;
};

// A name as table recordings keeps it: TEXT when it is UTF-8, else a BLOB of its bytes.
struct sql_path {
    std::string_view bytes;
};

// A value bound to a column of table recordings: text made for it (std::string), or text that
// lives as long as the row's source (std::string_view: the row's line, its error's fields, static
// names), bound without a copy of its own.
using sql_value = std::variant<std::int64_t, double, std::string, std::string_view, sql_path>;

// Where a column of table recordings comes from: its value in the row stored from `from`, or
// none for NULL.
using sql_field = std::optional<sql_value> (*)(const store_source& from);

// The value of each column of table recordings, named as its column. A file that could not be
// read has only path, valid, error_code, error_message, checked_with, report, indexed_at and the
// member fields; the header's fields (version, layout, has_*) need a version name, the stamp a
// stat, the metrics index --metrics.
namespace stored {
std::optional<sql_value> path(const store_source& from);
std::optional<sql_value> valid(const store_source& from);
std::optional<sql_value> bytes(const store_source& from);
std::optional<sql_value> version(const store_source& from);
std::optional<sql_value> layout(const store_source& from);
std::optional<sql_value> has_camera(const store_source& from);
std::optional<sql_value> has_hands(const store_source& from);
std::optional<sql_value> has_gaze(const store_source& from);
std::optional<sql_value> curves(const store_source& from);
std::optional<sql_value> keyframes(const store_source& from);
std::optional<sql_value> markers(const store_source& from);
std::optional<sql_value> start(const store_source& from);
std::optional<sql_value> duration(const store_source& from);
std::optional<sql_value> warnings_found(const store_source& from);
std::optional<sql_value> error_code(const store_source& from);
std::optional<sql_value> error_offset(const store_source& from);
std::optional<sql_value> error_place(const store_source& from);
std::optional<sql_value> error_curve(const store_source& from);
std::optional<sql_value> error_keyframe(const store_source& from);
std::optional<sql_value> error_marker(const store_source& from);
std::optional<sql_value> error_limit(const store_source& from);
std::optional<sql_value> error_message(const store_source& from);
std::optional<sql_value> size(const store_source& from);
std::optional<sql_value> mtime(const store_source& from);
std::optional<sql_value> inode(const store_source& from);
std::optional<sql_value> checked_with(const store_source& from);
std::optional<sql_value> report(const store_source& from);
std::optional<sql_value> indexed_at(const store_source& from);
std::optional<sql_value> left_path_length(const store_source& from);
std::optional<sql_value> right_path_length(const store_source& from);
std::optional<sql_value> left_pinches(const store_source& from);
std::optional<sql_value> right_pinches(const store_source& from);
std::optional<sql_value> left_coverage(const store_source& from);
std::optional<sql_value> right_coverage(const store_source& from);
std::optional<sql_value> fixations(const store_source& from);
std::optional<sql_value> mean_fixation_duration(const store_source& from);
std::optional<sql_value> archive(const store_source& from);
std::optional<sql_value> member(const store_source& from);
std::optional<sql_value> member_ordinal(const store_source& from);
std::optional<sql_value> member_offset(const store_source& from);
std::optional<sql_value> member_size(const store_source& from);
}  // namespace stored

}  // namespace detail

// One column of the index, where it is: a field of a row (`index --jsonl`, the Python frame) of
// type `json`, whose value `field` gives, a column of the database's table recordings declared as
// `sql` (after its name), whose value `stored` gives, or both. `since`: the schema that added it
// (2: the first kept, 3: the metrics, 4: the archives); a database of an older one lacks it, and
// the table's text aligns the names of the columns each schema added.
struct index_table_column {
    std::string_view name;
    std::optional<column_type> json;
    row_field field;
    std::string_view sql;
    detail::sql_field stored = nullptr;
    int since = 2;
};

// Every column of the index, once, in the order of both the row's fields and the table's
// columns: index_columns (the Python frame's), a row's fields (make_row, each from its column's
// source), the table's CREATE text, its upsert, the upsert's parameters and the value bound to
// each (sqlite_store.cpp, each from its column's source) are made from it. A row of an unreadable
// file has only path (path_bytes), valid, error and checked_with; the others are absent from its
// line and null in the frame. The member fields (docs/ARCHIVES.md) are those of a member of an
// archive, and archive, member (null) and member_ordinal those of an archive whose walk stopped; a
// file's row has none of them. The table keeps the error's fields and the metrics a column each,
// the stamp (size, mtime, inode) the skip check compares, the row's line (report) and when it was
// written (indexed_at).
inline constexpr auto index_table = std::to_array<index_table_column>({
    {"path", column_type::text, detail::path_text, "TEXT NOT NULL", detail::stored::path},
    {"path_bytes", column_type::text, detail::path_hex, {}},
    {"valid", column_type::flag, detail::from_report, "INTEGER NOT NULL", detail::stored::valid},
    {"bytes", column_type::count, detail::from_report, "INTEGER", detail::stored::bytes},
    {"version", column_type::text, detail::from_report, "TEXT", detail::stored::version},
    {"layout", column_type::text, detail::from_report, "TEXT", detail::stored::layout},
    {"has_camera", column_type::optional_flag, detail::from_report, "INTEGER",
     detail::stored::has_camera},
    {"has_hands", column_type::optional_flag, detail::from_report, "INTEGER",
     detail::stored::has_hands},
    {"has_gaze", column_type::optional_flag, detail::from_report, "INTEGER",
     detail::stored::has_gaze},
    {"curves", column_type::count, detail::from_report, "INTEGER", detail::stored::curves},
    {"keyframes", column_type::count, detail::from_report, "INTEGER", detail::stored::keyframes},
    {"markers", column_type::count, detail::from_report, "INTEGER", detail::stored::markers},
    {"start", column_type::number, detail::from_report, "REAL", detail::stored::start},
    {"duration", column_type::number, detail::from_report, "REAL", detail::stored::duration},
    {"warnings", column_type::object, detail::from_report, {}},
    {"warnings_found", column_type::count, detail::from_report, "INTEGER",
     detail::stored::warnings_found},
    {"error", column_type::object, detail::from_report, {}},
    {"error_code", std::nullopt, nullptr, "TEXT", detail::stored::error_code},
    {"error_offset", std::nullopt, nullptr, "INTEGER", detail::stored::error_offset},
    {"error_place", std::nullopt, nullptr, "TEXT", detail::stored::error_place},
    {"error_curve", std::nullopt, nullptr, "TEXT", detail::stored::error_curve},
    {"error_keyframe", std::nullopt, nullptr, "INTEGER", detail::stored::error_keyframe},
    {"error_marker", std::nullopt, nullptr, "INTEGER", detail::stored::error_marker},
    {"error_limit", std::nullopt, nullptr, "TEXT", detail::stored::error_limit},
    {"error_message", std::nullopt, nullptr, "TEXT", detail::stored::error_message},
    {"size", std::nullopt, nullptr, "INTEGER", detail::stored::size},
    {"mtime", std::nullopt, nullptr, "INTEGER", detail::stored::mtime},
    {"inode", std::nullopt, nullptr, "INTEGER", detail::stored::inode},
    {"checked_with", column_type::object, detail::from_report, "TEXT NOT NULL",
     detail::stored::checked_with},
    {"report", std::nullopt, nullptr, "TEXT NOT NULL", detail::stored::report},
    {"indexed_at", std::nullopt, nullptr, "INTEGER NOT NULL", detail::stored::indexed_at},
    {"left_path_length", std::nullopt, nullptr, "REAL", detail::stored::left_path_length, 3},
    {"right_path_length", std::nullopt, nullptr, "REAL", detail::stored::right_path_length, 3},
    {"left_pinches", std::nullopt, nullptr, "INTEGER", detail::stored::left_pinches, 3},
    {"right_pinches", std::nullopt, nullptr, "INTEGER", detail::stored::right_pinches, 3},
    {"left_coverage", std::nullopt, nullptr, "REAL", detail::stored::left_coverage, 3},
    {"right_coverage", std::nullopt, nullptr, "REAL", detail::stored::right_coverage, 3},
    {"fixations", std::nullopt, nullptr, "INTEGER", detail::stored::fixations, 3},
    {"mean_fixation_duration", std::nullopt, nullptr, "REAL",
     detail::stored::mean_fixation_duration, 3},
    {"archive", column_type::text, detail::archive_text, "TEXT", detail::stored::archive, 4},
    {"archive_bytes", column_type::text, detail::archive_hex, {}, nullptr, 4},
    {"member", column_type::text, detail::member_text, "TEXT", detail::stored::member, 4},
    {"member_bytes", column_type::text, detail::member_hex, {}, nullptr, 4},
    {"member_ordinal", column_type::count, detail::ordinal, "INTEGER NOT NULL DEFAULT -1",
     detail::stored::member_ordinal, 4},
    {"member_offset", column_type::count, detail::member_offset, "INTEGER",
     detail::stored::member_offset, 4},
    {"member_size", column_type::count, detail::member_size, "INTEGER", detail::stored::member_size,
     4},
});

namespace detail {

constexpr std::size_t json_column_count() {
    std::size_t n = 0;
    for (const index_table_column& c : index_table) n += c.json ? 1 : 0;
    return n;
}

constexpr std::array<index_column, json_column_count()> json_columns() {
    std::array<index_column, json_column_count()> columns{};
    std::size_t i = 0;
    for (const index_table_column& c : index_table) {
        if (c.json) columns[i++] = {c.name, *c.json};
    }
    return columns;
}

}  // namespace detail

// The fields of a row (`index --jsonl`), in the order of the Python frame's columns: those of
// index_table that a row has.
inline constexpr std::array<index_column, detail::json_column_count()> index_columns =
    detail::json_columns();

// The columns `index --metrics` adds: "metrics" (null for an invalid file or one that could not
// be measured) and "metrics_error" (why a valid one could not be).
inline constexpr std::array<index_column, 2> metrics_columns{{
    {"metrics", column_type::object},
    {"metrics_error", column_type::object},
}};

// The name of a column type, as the Python package maps it to a dtype.
std::string_view column_type_name(column_type t) noexcept;

// One row: the file's name and its fields by column name (the name's own, "path" and
// "path_bytes", included), each present field a value of its column's type. A row is made as its
// line (make_row) or from the fields a database holds; each form is made from the other on first
// use.
class index_row {
  public:
    // A row of these fields.
    index_row(std::string_view path, nlohmann::json fields)
        : path_(path), fields_(std::move(fields)) {}
    // A row whose line (json_text) is `text`.
    static index_row from_text(std::string_view path, std::string text);

    std::string_view path() const noexcept { return path_; }
    // The fields; those of a row made as its line are the line's, so a string has U+FFFD where
    // the name had bytes that are not UTF-8 (path_bytes keeps them).
    const nlohmann::json& fields() const;
    // The fields, for a holder of the row that keeps them (the row has none left).
    nlohmann::json take_fields() &&;
    // The row as one line of `--jsonl` (no newline): its fields' object, each byte of a string
    // that is not part of well-formed UTF-8 replaced by U+FFFD.
    const std::string& json_text() const;

  private:
    explicit index_row(std::string_view path) : path_(path) {}

    std::string_view path_;
    mutable std::optional<nlohmann::json> fields_;
    mutable std::optional<std::string> text_;
};

// The row of the file `from`, whose check gave the fields in `report` (report_fields's and
// "checked_with", with index --metrics "metrics" and "metrics_error" as the run adds them, or
// those of a file that could not be read: "valid", "error", "checked_with"): those of them that
// index_columns and metrics_columns name, and the table's others, each from its column's source.
// Nothing else of the report is taken; `report` is left empty, for the next row.
index_row make_row(const row_source& from, json_object_text& report);

}  // namespace inputanim::tools
