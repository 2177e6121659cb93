// The JSON object that describes one checked file. Every subcommand that reports on files
// (info, validate, and the servers) emits this same object, so its fields are stable API:
// docs/CLI.md lists them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "inputanim/archive.hpp"
#include "inputanim/error.hpp"
#include "inputanim/validate.hpp"
#include "report/json_text.hpp"

namespace inputanim::tools {

// {"valid", "bytes", "version", "layout", "has_camera", "has_hands", "has_gaze", "curves",
//  "keyframes", "markers", "start", "duration", "warnings", "warnings_found", "checked_with"
//  (options_json(how): the options that produced the verdict)}, plus
// "error" when the file is invalid, and "compressed_bytes" when the recording came gzip-compressed
// (`file_bytes` is then its inflated size). Fields the file does not tell are null: everything
// about the header when it could not be read, markers without a marker list, start and duration
// without keyframes. The file's name is not in it: json_line adds it.
nlohmann::json report_json(const report& rep, const validate_options& how, std::uint64_t file_bytes,
                           std::optional<std::uint64_t> compressed_bytes = std::nullopt);

// The fields of report_json but "checked_with", written into `out`: a json_object_text or a
// json_object_value (json_text.hpp). report_json adds options_fields under "checked_with"; a
// writer of many rows under the same options writes their text, made once.
template <class Out>
void report_fields(const report& rep, std::uint64_t file_bytes, Out& out,
                   std::optional<std::uint64_t> compressed_bytes = std::nullopt);

// The fields of report_json that describe the content: "version", "layout", "has_camera",
// "has_hands", "has_gaze", "curves", "keyframes", "markers", "start", "duration".
nlohmann::json summary_json(const summary& s);

// The object `fields` with the file's name added, as one line of JSON without the newline:
// "path" is the name, each byte that is not part of well-formed UTF-8 replaced by U+FFFD; a name
// that is not UTF-8 also gets "path_bytes", its exact bytes in hexadecimal (hex_bytes), so that
// two names never give the same object.
std::string json_line(std::string_view path, nlohmann::json fields);
// Adds the file's name to `fields` as json_line does ("path", and "path_bytes" when the name is
// not UTF-8), for a report nested in another object.
void add_path(nlohmann::json& fields, std::string_view path);

// Adds what places a member of an archive (docs/ARCHIVES.md): "archive" (the archive's name),
// "member" (its name in the archive), "member_ordinal" (its place among the archive's entries),
// "member_offset" (where its bytes lie in the archive when it holds them as they are, else null)
// and "member_size" (its size as the archive says); "archive_bytes" and "member_bytes" hold a
// name that is not UTF-8 as hex, as "path_bytes" does.
void add_member(nlohmann::json& fields, std::string_view archive, const archive_member& m);

// What produced a verdict: {"level", "layout", "limits": {"max_bytes", ...: a number, or null
// for no limit}, "rules": rules_version}. A stored verdict is reused only under equal options.
nlohmann::json options_json(const validate_options& how);
// Its fields, written into `out` as report_fields writes.
template <class Out>
void options_fields(const validate_options& how, Out& out);

// {"code", "offset", "place", "curve", "keyframe", "marker", "limit", "message"}.
nlohmann::json error_json(const error& e);
template <class Out>
void error_fields(const error& e, Out& out);

// {"code", "curve", "keyframe", "count", "message"}.
nlohmann::json warning_json(const warning& w);

// The number a float holds, as the shortest decimal that reads back as the same float (so that
// 0.1f prints as 0.1, not as the double 0.10000000149011612).
double json_number(float v);

}  // namespace inputanim::tools
