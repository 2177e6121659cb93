// File names are bytes, not text: Linux allows any byte but '/' and NUL, and names in other
// encodings turn up in real archives. JSON and SQLite text must be UTF-8, so such a name is
// written in a second, lossless form (docs/CLI.md, "File names").
#pragma once

#include <string>
#include <string_view>

namespace inputanim::cli {

// Whether `bytes` is well-formed UTF-8 (no overlong forms, no surrogates, nothing past U+10FFFF).
bool valid_utf8(std::string_view bytes) noexcept;

// Two lowercase hexadecimal digits per byte: "a\xff" is "61ff".
std::string hex_bytes(std::string_view bytes);

}  // namespace inputanim::cli
