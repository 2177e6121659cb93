#include "report/json_text.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <limits>

#include "os/text.hpp"

namespace inputanim::tools {

void append_json_string(std::string& out, std::string_view s) {
    bool plain = true;
    bool high = false;
    for (const char c : s) {
        const auto b = static_cast<unsigned char>(c);
        plain = plain && b >= 0x20 && b != '"' && b != '\\';
        high = high || b >= 0x80;
    }
    if (plain && (!high || valid_utf8(s))) {
        out += '"';
        out += s;
        out += '"';
        return;
    }
    // Escapes and replacements are rare (a name with a quote, bytes that are not UTF-8): the
    // serializer's own rules, whatever they are in detail.
    out += nlohmann::json(s).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

void append_json_number(std::string& out, double v) {
    if (!std::isfinite(v)) {
        out += "null";
        return;
    }
    // The serializer's own conversion (Grisu2), which its dump of a double calls.
    std::array<char, 64> text{};
    const char* end = nlohmann::detail::to_chars(text.data(), text.data() + text.size(), v);
    out.append(text.data(), static_cast<std::size_t>(end - text.data()));
}

void json_object_text::clear() noexcept {
    keys_.clear();
    values_.clear();
    fields_.clear();
}

void json_object_text::begin(std::string_view key) {
    fields_.push_back({static_cast<std::uint32_t>(keys_.size()),
                       static_cast<std::uint32_t>(key.size()),
                       static_cast<std::uint32_t>(values_.size()), 0});
    keys_ += key;
}

void json_object_text::end() noexcept {
    field& f = fields_.back();
    f.value_size = static_cast<std::uint32_t>(values_.size() - f.value_at);
}

void json_object_text::count(std::string_view key, std::uint64_t v) {
    std::array<char, std::numeric_limits<std::uint64_t>::digits10 + 1> text{};
    const auto r = std::to_chars(text.data(), text.data() + text.size(), v);
    raw(key, std::string_view(text.data(), static_cast<std::size_t>(r.ptr - text.data())));
}

void json_object_text::integer(std::string_view key, std::int64_t v) {
    std::array<char, std::numeric_limits<std::int64_t>::digits10 + 2> text{};
    const auto r = std::to_chars(text.data(), text.data() + text.size(), v);
    raw(key, std::string_view(text.data(), static_cast<std::size_t>(r.ptr - text.data())));
}

void json_object_text::number(std::string_view key, double v) {
    begin(key);
    append_json_number(values_, v);
    end();
}

void json_object_text::text(std::string_view key, std::string_view v) {
    begin(key);
    append_json_string(values_, v);
    end();
}

void json_object_text::raw(std::string_view key, std::string_view json) {
    begin(key);
    values_ += json;
    end();
}

void json_object_text::value(std::string_view key, const nlohmann::json& v) {
    raw(key, v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

bool json_object_text::contains(std::string_view key) const noexcept {
    return std::any_of(fields_.begin(), fields_.end(),
                       [&](const field& f) { return key_of(f) == key; });
}

void json_object_text::append_to(std::string& out) {
    // An insertion sort: stable (of a key written twice, the last value is kept), without the
    // buffer std::stable_sort takes, and quick for the few fields of a row.
    for (std::size_t i = 1; i < fields_.size(); ++i) {
        const field f = fields_[i];
        std::size_t j = i;
        for (; j > 0 && key_of(f) < key_of(fields_[j - 1]); --j) fields_[j] = fields_[j - 1];
        fields_[j] = f;
    }
    out.reserve(out.size() + keys_.size() + values_.size() + 4 * fields_.size() + 2);
    out += '{';
    bool first = true;
    for (std::size_t i = 0; i < fields_.size(); ++i) {
        const field& f = fields_[i];
        if (i + 1 < fields_.size() && key_of(fields_[i + 1]) == key_of(f)) continue;
        if (!first) out += ',';
        first = false;
        append_json_string(out, key_of(f));
        out += ':';
        out.append(values_, f.value_at, f.value_size);
    }
    out += '}';
}

}  // namespace inputanim::tools
