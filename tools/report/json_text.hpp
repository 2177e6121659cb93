// A JSON object written field by field, either straight to text (json_object_text) or into an
// nlohmann::json (json_object_value), so that one function of the fields of a report serves both:
// the command's `--jsonl` and the database write the text of millions of rows without building
// the object and dumping it (which was most of the main thread's time indexing small files), and
// everything else takes the object. The text is byte for byte what the object's
// dump(-1, ' ', false, error_handler_t::replace) gives: keys sorted as nlohmann::json sorts them,
// numbers and strings as its serializer writes them (tests/test_report_json_text.cpp compares
// the two).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace inputanim::tools {

// Appends `s` as a JSON string, as nlohmann::json dumps it with error_handler_t::replace: each
// byte that is not part of well-formed UTF-8 replaced by U+FFFD, and nothing escaped beyond '"',
// '\\' and the control characters.
void append_json_string(std::string& out, std::string_view s);
// Appends `v` as nlohmann::json dumps a double: the shortest text that reads back as `v` (a whole
// number with ".0"), and null for a NaN or an infinity.
void append_json_number(std::string& out, double v);

// The fields of one object, in any order, each key once (a key written again replaces the
// value, as `object[key] = value` does). The object's text is made by append_to.
class json_object_text {
  public:
    // No fields; the memory is kept for the next object.
    void clear() noexcept;

    void null(std::string_view key) { raw(key, "null"); }
    void boolean(std::string_view key, bool v) { raw(key, v ? "true" : "false"); }
    void count(std::string_view key, std::uint64_t v);
    void integer(std::string_view key, std::int64_t v);
    void number(std::string_view key, double v);
    void text(std::string_view key, std::string_view v);
    // A value that is JSON text already, as dump() wrote it.
    void raw(std::string_view key, std::string_view json);
    // A value of any kind, dumped.
    void value(std::string_view key, const nlohmann::json& v);
    // An object whose fields `fill` writes into the json_object_text it is given.
    template <class Fill>
    void object(std::string_view key, Fill&& fill) {
        json_object_text inner;
        fill(inner);
        begin(key);
        inner.append_to(values_);
        end();
    }
    // An array of `n` objects, the fields of the ith written by fill(i, object).
    template <class Fill>
    void objects(std::string_view key, std::size_t n, Fill&& fill) {
        begin(key);
        values_ += '[';
        json_object_text inner;
        for (std::size_t i = 0; i < n; ++i) {
            if (i != 0) values_ += ',';
            inner.clear();
            fill(i, inner);
            inner.append_to(values_);
        }
        values_ += ']';
        end();
    }

    bool contains(std::string_view key) const noexcept;
    // Drops the fields whose key `keep` refuses.
    template <class Keep>
    void keep_if(Keep&& keep) {
        std::erase_if(fields_, [&](const field& f) { return !keep(key_of(f)); });
    }

    // Appends the object: its fields sorted by key.
    void append_to(std::string& out);

  private:
    struct field {
        std::uint32_t key_at;
        std::uint32_t key_size;
        std::uint32_t value_at;
        std::uint32_t value_size;
    };
    // A field whose value is appended to values_ next, up to end().
    void begin(std::string_view key);
    void end() noexcept;
    std::string_view key_of(const field& f) const noexcept {
        return std::string_view(keys_).substr(f.key_at, f.key_size);
    }

    std::string keys_;
    std::string values_;
    std::vector<field> fields_;
};

// The same fields into an nlohmann::json object.
class json_object_value {
  public:
    void null(std::string_view key) { at(key) = nullptr; }
    void boolean(std::string_view key, bool v) { at(key) = v; }
    void count(std::string_view key, std::uint64_t v) { at(key) = v; }
    void integer(std::string_view key, std::int64_t v) { at(key) = v; }
    void number(std::string_view key, double v) { at(key) = v; }
    void text(std::string_view key, std::string_view v) { at(key) = v; }
    void raw(std::string_view key, std::string_view json) { at(key) = nlohmann::json::parse(json); }
    void value(std::string_view key, const nlohmann::json& v) { at(key) = v; }
    template <class Fill>
    void object(std::string_view key, Fill&& fill) {
        json_object_value inner;
        fill(inner);
        at(key) = std::move(inner).take();
    }
    template <class Fill>
    void objects(std::string_view key, std::size_t n, Fill&& fill) {
        nlohmann::json items = nlohmann::json::array();
        for (std::size_t i = 0; i < n; ++i) {
            json_object_value inner;
            fill(i, inner);
            items.push_back(std::move(inner).take());
        }
        at(key) = std::move(items);
    }

    nlohmann::json take() && { return std::move(object_); }

  private:
    nlohmann::json& at(std::string_view key) { return object_[std::string(key)]; }

    nlohmann::json object_ = nlohmann::json::object();
};

}  // namespace inputanim::tools
