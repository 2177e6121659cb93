// Unity clips as text for the .anim importer's tests: a recording exported, and edits of the
// text as a person (or Unity) makes them.
#pragma once

#include <gtest/gtest.h>

#include <span>
#include <string>
#include <string_view>

#include "inputanim/export.hpp"
#include "support/builders.hpp"

namespace inputanim::testing {

inline std::span<const std::byte> as_bytes(std::string_view text) {
    return std::as_bytes(std::span<const char>(text.data(), text.size()));
}

// `export --format anim` of the file `file`.
inline std::string exported_anim(const bytes& file) {
    recording rec;
    EXPECT_FALSE(rec.open(view(file)));
    bytes out;
    vector_sink sink(out);
    export_options o;
    o.format = export_format::anim;
    const export_result r = export_recording(rec, sink, o);
    EXPECT_FALSE(r.error) << r.error.message();
    return {reinterpret_cast<const char*>(out.data()), out.size()};
}

// Replaces the first `from` in `text`, which must hold it.
inline void replace_once(std::string& text, std::string_view from, std::string_view to) {
    const std::size_t at = text.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    text.replace(at, from.size(), to);
}

// The text of the first key whose time is written `time`, from its `- serializedVersion` to its
// outWeight's line.
inline std::string key_block(const std::string& text, std::string_view time) {
    const std::size_t at = text.find("        time: " + std::string(time) + "\n");
    EXPECT_NE(at, std::string::npos) << time;
    if (at == std::string::npos) return {};
    const std::size_t start = text.rfind("      - serializedVersion: 3\n", at);
    const std::size_t weight = text.find("        outWeight: ", at);
    return text.substr(start, text.find('\n', weight) + 1 - start);
}

}  // namespace inputanim::testing
