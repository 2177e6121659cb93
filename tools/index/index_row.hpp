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

#include <nlohmann/json.hpp>

namespace inputanim::records {

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

// The fields of a row (`index --jsonl`), in the order of the Python frame's columns. A row of an
// unreadable file has only path (path_bytes), valid, error and checked_with; the others are absent
// from its line and null in the frame. The member fields (docs/ARCHIVES.md) are those of a member
// of an archive, and archive and member_ordinal those of an archive whose walk stopped; a file's
// row has none of them.
inline constexpr std::array<index_column, 25> index_columns{{
    {"path", column_type::text},
    {"path_bytes", column_type::text},
    {"valid", column_type::flag},
    {"bytes", column_type::count},
    {"version", column_type::text},
    {"layout", column_type::text},
    {"has_camera", column_type::optional_flag},
    {"has_hands", column_type::optional_flag},
    {"has_gaze", column_type::optional_flag},
    {"curves", column_type::count},
    {"keyframes", column_type::count},
    {"markers", column_type::count},
    {"start", column_type::number},
    {"duration", column_type::number},
    {"warnings", column_type::object},
    {"warnings_found", column_type::count},
    {"error", column_type::object},
    {"checked_with", column_type::object},
    {"archive", column_type::text},
    {"archive_bytes", column_type::text},
    {"member", column_type::text},
    {"member_bytes", column_type::text},
    {"member_ordinal", column_type::count},
    {"member_offset", column_type::count},
    {"member_size", column_type::count},
}};

// The columns `index --metrics` adds: "metrics" (null for an invalid file or one that could not
// be measured) and "metrics_error" (why a valid one could not be).
inline constexpr std::array<index_column, 2> metrics_columns{{
    {"metrics", column_type::object},
    {"metrics_error", column_type::object},
}};

// The name of a column type, as the Python package maps it to a dtype.
std::string_view column_type_name(column_type t) noexcept;

// One row: the file's name and its fields by column name (the name's own, "path" and
// "path_bytes", included), each present field a value of its column's type.
class index_row {
  public:
    index_row(std::string_view path, nlohmann::json fields)
        : path_(path), fields_(std::move(fields)) {}

    std::string_view path() const noexcept { return path_; }
    const nlohmann::json& fields() const noexcept { return fields_; }
    // The fields, for a holder of the row that keeps them (the row has none left).
    nlohmann::json take_fields() && noexcept { return std::move(fields_); }
    // The row as one line of `--jsonl` (no newline): its fields' object, each byte of a string
    // that is not part of well-formed UTF-8 replaced by U+FFFD. Made once, on first use.
    const std::string& json_text() const;

  private:
    std::string_view path_;
    nlohmann::json fields_;
    mutable std::optional<std::string> text_;
};

}  // namespace inputanim::records
