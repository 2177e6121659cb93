#include "index/index_row.hpp"

namespace inputanim::records {

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

}  // namespace inputanim::records
