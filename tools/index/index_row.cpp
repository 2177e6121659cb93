#include "index/index_row.hpp"

#include <string>
#include <utility>

#include "os/text.hpp"

namespace inputanim::records {

namespace detail {

namespace {

void put(nlohmann::json::object_t& fields, std::string_view name, nlohmann::json value) {
    fields.emplace(name, std::move(value));
}

// A name that is not UTF-8 is kept exactly beside it, as hex.
void put_hex(nlohmann::json::object_t& fields, std::string_view name, std::string_view bytes) {
    if (!valid_utf8(bytes)) put(fields, name, hex_bytes(bytes));
}

}  // namespace

void from_report(row_source& from, std::string_view name, nlohmann::json::object_t& fields) {
    // The field's node moves over whole: a row costs no copy of its report.
    auto& report = from.report.get_ref<nlohmann::json::object_t&>();
    if (const auto it = report.find(name); it != report.end()) fields.insert(report.extract(it));
}

void path_text(row_source& from, std::string_view name, nlohmann::json::object_t& fields) {
    put(fields, name, from.path);
}

void path_hex(row_source& from, std::string_view name, nlohmann::json::object_t& fields) {
    put_hex(fields, name, from.path);
}

void archive_text(row_source& from, std::string_view name, nlohmann::json::object_t& fields) {
    if (!from.archive.empty()) put(fields, name, from.archive);
}

void archive_hex(row_source& from, std::string_view name, nlohmann::json::object_t& fields) {
    if (from.member) put_hex(fields, name, from.archive);
}

void member_text(row_source& from, std::string_view name, nlohmann::json::object_t& fields) {
    if (from.member) {
        put(fields, name, from.member->name);
    } else if (!from.archive.empty()) {
        put(fields, name, nullptr);
    }
}

void member_hex(row_source& from, std::string_view name, nlohmann::json::object_t& fields) {
    if (from.member) put_hex(fields, name, from.member->name);
}

void ordinal(row_source& from, std::string_view name, nlohmann::json::object_t& fields) {
    if (!from.archive.empty()) put(fields, name, from.ordinal);
}

void member_offset(row_source& from, std::string_view name, nlohmann::json::object_t& fields) {
    if (!from.member) return;
    const std::optional<std::uint64_t>& at = from.member->data_offset;
    put(fields, name, at ? nlohmann::json(*at) : nlohmann::json());
}

void member_size(row_source& from, std::string_view name, nlohmann::json::object_t& fields) {
    if (from.member) put(fields, name, from.member->size);
}

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

const std::string& index_row::json_text() const {
    if (!text_) text_ = fields_.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    return *text_;
}

index_row make_row(row_source from) {
    nlohmann::json fields = nlohmann::json::object();
    auto& object = fields.get_ref<nlohmann::json::object_t&>();
    for (const index_table_column& c : index_table) {
        if (c.field) c.field(from, c.name, object);
    }
    for (const index_column& c : metrics_columns) detail::from_report(from, c.name, object);
    return index_row(from.path, std::move(fields));
}

}  // namespace inputanim::records
