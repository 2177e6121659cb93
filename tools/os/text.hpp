// File names are bytes, not text: Linux allows any byte but '/' and NUL, and names in other
// encodings turn up in real archives. JSON and SQLite text must be UTF-8, so such a name is
// written in a second, lossless form (docs/CLI.md, "File names").
#pragma once

#include <string>
#include <string_view>

namespace inputanim::tools {

// Whether `bytes` is well-formed UTF-8 (no overlong forms, no surrogates, nothing past U+10FFFF).
bool valid_utf8(std::string_view bytes) noexcept;

// Two lowercase hexadecimal digits per byte: "a\xff" is "61ff".
std::string hex_bytes(std::string_view bytes);

// `text` (a file name, a glob the user typed) made safe for a line of human-readable output:
// bytes that a terminal or a reader of lines would act on are escaped C-style, so that a name
// cannot forge a line or move the cursor, and a backslash is doubled, so the escape is lossless.
// `\n`, `\r`, `\t` and `\\` stand for a line feed, carriage return, tab and backslash;
// `\xNN` (two upper-case hex digits) for any other C0 control or DEL, for each byte of a C1
// control (U+0080 to U+009F) and for each byte that is not part of valid UTF-8 (RFC 3629).
// Printable ASCII and every other valid UTF-8 character stay as they are.
std::string printable(std::string_view text);

// An RFC 4180 field: quoted when it holds a comma, a quote or a line break.
std::string csv_field(std::string_view text);

// The shortest decimal that reads back as `v` in its own type (a float's 0.1f is "0.1").
std::string number_text(double v);

std::string number_text(float v);

}  // namespace inputanim::tools
