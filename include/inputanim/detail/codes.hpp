// The one way an error enumeration is made (docs/DESIGN.md, "Errors"): a table of its codes, each
// with its value, stable name and message, from which its name function, the name's parse, its
// description and its std::error_category are read. Public only because the command's own
// category (tools/index) is made the same way; nothing in the API depends on it.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <system_error>

#include "inputanim/detail/names.hpp"

namespace inputanim::detail {

// One code: its value, its stable name (as reports and databases hold it) and its message.
template <class Code>
struct code_row {
    Code code;
    std::string_view name;
    std::string_view message;
};

// The codes of one category, and the message of a value that is none of them.
template <class Code>
class code_table {
  public:
    template <std::size_t N>
    constexpr code_table(const code_row<Code> (&rows)[N], std::string_view unknown) noexcept
        : rows_(rows), unknown_(unknown) {}

    // The row of `value`, or none. The value is looked up, never cast to Code: a value past
    // Code's underlying type would wrap onto a real code.
    constexpr const code_row<Code>* find(long long value) const noexcept {
        for (const code_row<Code>& row : rows_) {
            if (static_cast<long long>(row.code) == value) return &row;
        }
        return nullptr;
    }
    // The code's stable name; unknown_name for a value that is no code.
    constexpr std::string_view name(Code code) const noexcept {
        const code_row<Code>* row = find(static_cast<long long>(code));
        return row ? row->name : unknown_name;
    }
    // The code a stable name names, if any (exact match).
    constexpr std::optional<Code> parse(std::string_view name) const noexcept {
        for (const code_row<Code>& row : rows_) {
            if (row.name == name) return row.code;
        }
        return std::nullopt;
    }
    // The message of `value`; the unknown message for a value that is no code.
    constexpr std::string_view message(long long value) const noexcept {
        const code_row<Code>* row = find(value);
        return row ? row->message : unknown_;
    }

  private:
    std::span<const code_row<Code>> rows_;
    std::string_view unknown_;
};

// The std::error_category of a table: its name, and each value's message from the table. A code
// is equivalent to no std::errc condition here; a category whose codes mean one overrides
// default_error_condition.
template <class Code>
class code_category : public std::error_category {
  public:
    code_category(const char* name, const code_table<Code>& codes) noexcept
        : name_(name), codes_(codes) {}

    const char* name() const noexcept override { return name_; }
    std::string message(int value) const override { return std::string(codes_.message(value)); }

  private:
    const char* name_;
    code_table<Code> codes_;
};

}  // namespace inputanim::detail
