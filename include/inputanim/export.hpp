// Exports of a recording to formats other tools read (docs/EXPORT.md): glTF 2.0, binary (.glb) or
// JSON with the buffer embedded (.gltf), sampled on the resampler's grid; and Unity's text
// AnimationClip (.anim), which carries the recording's own keyframes.
//
//     inputanim::export_options o;
//     o.format = inputanim::export_format::glb;
//     inputanim::export_result r = inputanim::export_recording(rec, sink, o);
//     if (r.error) ...   // a grid_error, an export_error, or the sink's code
//
// The size of the output is computed before its first byte is written and checked against
// `max_bytes`; nothing is written when it is over. The recording's bytes must stay readable while
// exporting (a mapping's read fault is the caller's to guard, as for evaluation).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <system_error>

#include "inputanim/evaluate.hpp"
#include "inputanim/recording.hpp"
#include "inputanim/writer.hpp"

namespace inputanim {

enum class export_format : std::uint8_t { glb, gltf, anim };
// "glb", "gltf", "anim": the names --to and Python take, and the file extensions.
std::string_view export_format_name(export_format f) noexcept;
std::optional<export_format> parse_export_format_name(std::string_view name) noexcept;

// The default ceiling on an export's size: 1 GiB.
inline constexpr std::uint64_t default_max_export_bytes = std::uint64_t{1} << 30;

struct export_options {
    export_format format = export_format::glb;
    // glTF: the grid (resampler::set_grid); from defaults to the first key time, to to the
    // duration. A Unity clip carries the keys themselves: the rate is its m_SampleRate only, and
    // a window is refused (window_not_supported).
    double rate = 60.0;
    std::optional<double> from;
    std::optional<double> to;
    // The largest output accepted, in bytes.
    std::uint64_t max_bytes = default_max_export_bytes;
};

// Why an export was refused (besides a grid_error or the sink's code).
enum class export_error : std::uint8_t {
    none,
    // The grid has no row: `from` lies after the recording's last key time or `to` before its
    // first.
    empty_window,
    // The output would be larger than max_bytes.
    too_large,
    // A time window for a Unity clip, which carries the recording's keys as they are.
    window_not_supported,
};
std::string_view export_error_name(export_error e) noexcept;
const std::error_category& export_error_category() noexcept;
std::error_code make_error_code(export_error e) noexcept;

struct export_result {
    std::error_code error;
    // The size computed before writing: exact for glTF, an upper bound for a Unity clip; filled
    // in when the size was refused too.
    std::uint64_t size = 0;
    // Bytes handed to the sink.
    std::uint64_t written = 0;
    // glTF: the grid's rows (keyframes of every channel).
    std::uint64_t rows = 0;
    // glTF: the seconds added to every time so that the first is 0 (0 when no time is negative).
    double time_shift = 0.0;
};

// Writes `rec` in `o.format` to `sink`. Evaluation is the library's (evaluate, resampler): a glTF
// keyframe's values are exactly the row `inputanim sample` prints at its time, converted to
// glTF's right-handed coordinates.
export_result export_recording(const recording& rec, byte_sink& sink, const export_options& o);

}  // namespace inputanim

template <>
struct std::is_error_code_enum<inputanim::export_error> : std::true_type {};
