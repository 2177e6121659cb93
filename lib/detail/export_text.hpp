// What the exporters write as text (docs/EXPORT.md): the one escaper of names for JSON and YAML,
// numbers in their shortest form, a text that is counted or built by the same code, and the
// bounded buffer a piece of the output is made in. Nothing here allocates but text_target when it
// builds, so the steps of an export that read a mapping can run under guarded().
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "inputanim/detail/number_text.hpp"

namespace inputanim::detail {

// The most bytes quote_one writes for one character.
inline constexpr std::size_t max_quoted_char = 6;

// One step of a name written into a double-quoted string that JSON and YAML 1.1 both read back
// as exactly the name: `consumed` bytes of the name became `written` bytes of the string body.
struct quote_step {
    std::size_t consumed = 0;
    std::size_t written = 0;
};

// The character at the start of `s` (not empty) as the string body holds it, into `out` (room
// for max_quoted_char bytes). Escaped as \uXXXX (lowercase hex, read the same by JSON and YAML's
// double-quoted style): the C0 controls and DEL, the C1 controls U+0080-U+009F (YAML 1.1 reads
// U+0085 raw as a line break, and refuses the others), U+2028 and U+2029 (line breaks to YAML),
// the byte-order mark U+FEFF and the noncharacters of the Basic Multilingual Plane (U+FDD0-U+FDEF,
// U+FFFE, U+FFFF), which YAML 1.1 does not allow raw; `"` and `\` as \" and \\. A byte that does
// not start a valid UTF-8 character (a name of a file read at level structure) is \ufffd, the
// replacement character. Every other character is copied: the noncharacters beyond the Basic
// Multilingual Plane are printable to YAML 1.1 and JSON, and an escape of them would need a
// surrogate pair, which YAML does not join.
quote_step quote_one(std::string_view s, char* out) noexcept;

// The length of `s`'s string body (without the quotes), as quote_one writes it.
std::uint64_t quoted_length(std::string_view s) noexcept;

// Text that is either counted (no allocation) or appended to a string whose capacity was
// reserved for the count, so that the size computed before an export and the bytes written come
// from one piece of code.
class text_target {
  public:
    // Counts.
    text_target() noexcept = default;
    // Appends to `out`.
    explicit text_target(std::string& out) noexcept : out_(&out) {}

    text_target& operator<<(std::string_view s);
    text_target& operator<<(char c);
    // Shortest decimal (finite values only).
    text_target& number(double v);
    text_target& number(float v);
    text_target& integer(std::uint64_t v);
    // "s", with quote_one's escapes.
    text_target& quoted(std::string_view s);

    std::uint64_t size() const noexcept { return size_; }

  private:
    std::string* out_ = nullptr;
    std::uint64_t size_ = 0;
};

// The text `write(text_target&)` makes, built into `out` after it was counted, so that `out`
// holds it in one allocation of exactly its size.
template <class Write>
void build_text(std::string& out, Write&& write) {
    text_target counted;
    write(counted);
    out.reserve(counted.size());
    text_target built(out);
    write(built);
}

// A piece of the output being made, in a buffer allocated once: every writer checks room()
// before it puts, and yields the piece (starts a new one) when there is none.
class piece_buffer {
  public:
    // The buffer; its capacity is what each piece may hold.
    void attach(std::span<std::byte> buffer) noexcept {
        buffer_ = buffer;
        used_ = 0;
    }
    std::size_t room() const noexcept { return buffer_.size() - used_; }
    std::size_t capacity() const noexcept { return buffer_.size(); }
    // Room for `n` more bytes.
    bool fits(std::size_t n) const noexcept { return n <= room(); }
    char* cursor() noexcept { return reinterpret_cast<char*>(buffer_.data() + used_); }
    std::byte* byte_cursor() noexcept { return buffer_.data() + used_; }
    void advance(std::size_t n) noexcept { used_ += n; }
    // Callers check fits() first.
    void put(std::string_view s) noexcept;
    void put(char c) noexcept { *cursor() = c, ++used_; }
    // Finite values only; 32 bytes of room.
    void number(double v) noexcept { used_ += number_chars(v, cursor()); }
    void number(float v) noexcept { used_ += number_chars(v, cursor()); }
    // As much of `text` from `at` as fits; returns the new `at`.
    std::size_t copy_from(std::string_view text, std::size_t at) noexcept;
    // As much of `name` from `at`, escaped, as fits whole characters; returns the new `at`.
    std::size_t quote_from(std::string_view name, std::size_t at) noexcept;

    std::span<const std::byte> taken() const noexcept { return buffer_.first(used_); }
    bool empty() const noexcept { return used_ == 0; }
    void clear() noexcept { used_ = 0; }

  private:
    std::span<std::byte> buffer_;
    std::size_t used_ = 0;
};

}  // namespace inputanim::detail
