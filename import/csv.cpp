// The CSV importer: the table `inputanim sample` prints (docs/CLI.md) back into keys. The header is
// `t` and curve paths; each row is a time and the curves' values there, every number the shortest
// text of a float32, which from_chars reads back to the same float. Every row becomes a key of
// every column's curve: a float curve's key is MRTK's linear key, so that the file plays the
// straight lines between the samples that `sample` would print again at the same times; a bool
// curve's key is a step, as bool curves play.
#include <charconv>
#include <string>
#include <string_view>
#include <vector>

#include "importers.hpp"

namespace inputanim::detail {

namespace {

// The table's lines, one at a time: "\n" or "\r\n" ends a line, and a last line without one is a
// line too. A final line ending does not start an empty line.
class lines {
  public:
    explicit lines(std::string_view text) noexcept : rest_(text) {}

    bool next(std::string_view& line) noexcept {
        if (rest_.empty()) return false;
        const std::size_t end = rest_.find('\n');
        line = rest_.substr(0, end);
        rest_ = end == std::string_view::npos ? std::string_view{} : rest_.substr(end + 1);
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        ++number_;
        return true;
    }
    // What next() has not given yet.
    std::string_view rest() const noexcept { return rest_; }
    // The 1-based number of the line next() gave last.
    std::size_t number() const noexcept { return number_; }

  private:
    std::string_view rest_;
    std::size_t number_ = 0;
};

// The next comma-separated field of `line`, which it consumes; `more` is false after the last.
std::string_view next_field(std::string_view& line, bool& more) noexcept {
    const std::size_t comma = line.find(',');
    const std::string_view field = line.substr(0, comma);
    more = comma != std::string_view::npos;
    line = more ? line.substr(comma + 1) : std::string_view{};
    return field;
}

// The rows that follow the header: its lines, as lines::next counts them.
std::uint64_t count_rows(std::string_view body) noexcept {
    std::uint64_t n = 0;
    lines all(body);
    std::string_view line;
    while (all.next(line)) ++n;
    return n;
}

std::string quoted(std::string_view text) {
    constexpr std::size_t shown = 40;
    std::string q = "'" + std::string(text.substr(0, shown));
    return q + (text.size() > shown ? "...'" : "'");
}

}  // namespace

import_result import_csv(std::span<const std::byte> bytes, model& out,
                         const import_options& options) {
    const std::string_view text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    lines table(text);
    std::string_view header;
    if (!table.next(header)) return refuse(import_error::missing_column, "the CSV is empty");
    bool more = true;
    if (next_field(header, more) != "t") {
        return refuse(import_error::missing_column,
                      "line 1: the first column must be t, the time, as `inputanim sample` "
                      "prints it");
    }
    std::vector<curve_id> columns;
    out.blocks = block_flags{false, false, false};
    while (more) {
        const std::string_view name = next_field(header, more);
        const std::optional<curve_id> id = find_curve(name);
        if (!id) {
            return refuse(import_error::missing_column,
                          "line 1: column " + std::to_string(columns.size() + 2) + " " +
                              quoted(name) + " names no curve (such as camera.position.x)");
        }
        for (const curve_id seen : columns) {
            if (seen == *id) {
                return refuse(import_error::missing_column,
                              "line 1: the column " + std::string(name) + " is there twice");
            }
        }
        columns.push_back(*id);
        switch (block_of(*id)) {
            case block::camera:
                out.blocks.camera = true;
                break;
            case block::hands:
                out.blocks.hands = true;
                break;
            case block::gaze:
                out.blocks.gaze = true;
                break;
        }
    }
    if (columns.empty()) {
        return refuse(import_error::missing_column, "line 1: no column names a curve");
    }

    const std::uint64_t rows = count_rows(table.rest());
    key_budget budget(options.limits);
    for (const curve_id id : columns) {
        if (std::optional<import_result> refused = budget.take_keys(rows, curve_path(id))) {
            return *refused;
        }
        out[id].keys.reserve(static_cast<std::size_t>(rows));
    }

    std::string_view line;
    while (table.next(line)) {
        const std::size_t row = table.number();
        if (line.empty()) {
            return refuse(import_error::bad_number, "line " + std::to_string(row) + " is empty");
        }
        float values[1 + curve_id_count];
        std::size_t fields = 0;
        more = true;
        while (more) {
            const std::string_view field = next_field(line, more);
            const std::size_t column = fields++;
            if (column > columns.size()) break;
            float v = 0.0f;
            const auto [end, ec] = std::from_chars(field.data(), field.data() + field.size(), v);
            if (ec != std::errc{} || end != field.data() + field.size()) {
                const std::string name =
                    column == 0 ? std::string("t") : std::string(curve_path(columns[column - 1]));
                return refuse(import_error::bad_number, "line " + std::to_string(row) + ": " +
                                                            quoted(field) + " in column " + name +
                                                            " is not a number");
            }
            values[column] = v;
        }
        if (fields != columns.size() + 1) {
            return refuse(import_error::bad_number,
                          "line " + std::to_string(row) + ": " + std::to_string(fields) +
                              (fields > columns.size() + 1 ? " fields or more" : " fields") +
                              ", not the header's " + std::to_string(columns.size() + 1));
        }
        for (std::size_t c = 0; c < columns.size(); ++c) {
            keyframe k;
            k.time = values[0];
            k.value = values[c + 1];
            out[columns[c]].keys.push_back(k);
        }
    }
    return finish_import(out, options, {});
}

}  // namespace inputanim::detail
