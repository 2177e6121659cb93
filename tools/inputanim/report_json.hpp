// The JSON object that describes one checked file. Every subcommand that reports on files
// (info, validate, and the servers) emits this same object, so its fields are stable API:
// docs/CLI.md lists them.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include <nlohmann/json.hpp>

#include "inputanim/error.hpp"
#include "inputanim/validate.hpp"

namespace inputanim::cli {

// {"path", "valid", "bytes", "version", "layout", "has_camera", "has_hands", "has_gaze",
//  "curves", "keyframes", "markers", "start", "duration", "warnings", "warnings_found"}, plus
// "error" when the file is invalid, and "compressed_bytes" when the recording came gzip-compressed
// (`file_bytes` is then its inflated size). Fields the file does not tell are null: everything
// about the header when it could not be read, markers without a marker list, start and duration
// without keyframes.
nlohmann::json report_json(std::string_view path, const report& rep, std::uint64_t file_bytes,
                           std::optional<std::uint64_t> compressed_bytes = std::nullopt);

// {"code", "offset", "place", "curve", "keyframe", "marker", "limit", "message"}.
nlohmann::json error_json(const error& e);

// {"code", "curve", "keyframe", "count", "message"}.
nlohmann::json warning_json(const warning& w);

// The number a float holds, as the shortest decimal that reads back as the same float (so that
// 0.1f prints as 0.1, not as the double 0.10000000149011612).
double json_number(float v);

}  // namespace inputanim::cli
