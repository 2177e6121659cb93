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
// `max_bytes`; nothing is written when it is over, nor when a number glTF cannot hold would be
// written (docs/EXPORT.md). The output is made in pieces: nothing the size of the output is held.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string_view>
#include <system_error>

#include "inputanim/evaluate.hpp"
#include "inputanim/guard.hpp"
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
    // duration. A Unity clip carries the keys themselves: the rate is its m_SampleRate only (a
    // finite rate above 0, as for glTF: grid_error::bad_rate), and a window is refused
    // (window_not_supported).
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
    // A number glTF would have to hold is not finite (glTF's numbers are finite): a value of a
    // curve at a grid time, a marker's time, a pinch interval's end or the recording's first or
    // last key time (export_result::fault says which). A file read at level structure may hold
    // NaN or infinity.
    not_finite,
    // Shifted so that the first grid time is 0 (glTF's times start at 0), a later grid time
    // would pass the largest float: the grid from export_result::first_time to last_time.
    time_overflow,
    // A .glb over 4 GiB: its chunk and file lengths are 32-bit numbers (the glTF 2.0 container).
    glb_too_large,
};
std::string_view export_error_name(export_error e) noexcept;
const std::error_category& export_error_category() noexcept;
std::error_code make_error_code(export_error e) noexcept;

// The largest .glb: its file length is a 32-bit number.
inline constexpr std::uint64_t max_glb_bytes = 0xffffffffu;

// Where an export found a number glTF cannot hold (export_error::not_finite).
struct export_fault {
    enum class place : std::uint8_t {
        // The value of `curve` at grid time `time`.
        curve_value,
        // A key time of `curve` (a pinch curve, whose intervals the glTF lists).
        key_time,
        // The time of marker `marker`.
        marker_time,
        // The recording's first or last key time (summary start and duration).
        summary_time,
    };
    place where = place::curve_value;
    curve_id curve{};
    std::uint64_t marker = 0;
    // curve_value: the grid time; key_time, marker_time, summary_time: the time itself.
    double time = 0.0;
    // curve_value: the value.
    double value = 0.0;
};

struct export_result {
    std::error_code error;
    // The size of the output, computed before its first byte is written: the bytes it has (or,
    // refused as too_large or glb_too_large, would have). When the grid has too many rows to count
    // (keys far from 0 whose float times collapse, past the ceiling), the size of the grid's
    // first max_rows + 1 rows and size_is_lower_bound.
    std::uint64_t size = 0;
    bool size_is_lower_bound = false;
    // Bytes handed to the sink.
    std::uint64_t written = 0;
    // What prepare() allocates, all an export holds while it runs: the piece the output is made
    // in and the fixed text around the keys and markers (which are streamed).
    std::uint64_t buffer_bytes = 0;
    // glTF: the grid's rows (keyframes of every channel).
    std::uint64_t rows = 0;
    // glTF: the seconds added to every time so that the first is 0 (0 when no time is negative).
    double time_shift = 0.0;
    // glTF: the grid's first and last times, before the shift (time_overflow says them).
    double first_time = 0.0;
    double last_time = 0.0;
    // not_finite: where.
    export_fault fault{};
    // The recording's bytes could not be read (a mapped file cut short by another process):
    // error is std::errc::io_error, and what was handed to the sink is not the export.
    bool source_failed = false;
};

// An export in three steps, for a caller that reads a mapping under guarded() (guard.hpp), whose
// fault must not interrupt an allocation: plan() and next() read the recording and allocate
// nothing; prepare() allocates and reads nothing of its keys or markers.
//
//     inputanim::exporter e(rec, options);
//     inputanim::export_result planned;
//     guarded(bytes, [&] { planned = e.plan(); });       // the exact size, or the refusal
//     if (!planned.error && !e.prepare()) {
//         std::span<const std::byte> piece;
//         while (!guarded(bytes, [&] { piece = e.next(); }) && !piece.empty()) write(piece);
//     }
//
// The recording must outlive the exporter. Every refusal comes from plan(), before the first
// byte: the size over the ceiling, a number glTF cannot hold, times that overflow.
class exporter {
  public:
    exporter(const recording& rec, const export_options& o);
    ~exporter();
    exporter(exporter&&) noexcept;
    exporter& operator=(exporter&&) noexcept;
    exporter(const exporter&) = delete;
    exporter& operator=(const exporter&) = delete;

    // The size of the output, or why it is refused. Allocates nothing.
    export_result plan() noexcept;
    // The buffers the output is made in (after a plan without error): not_enough_memory when
    // they cannot be had. Reads no key or marker.
    std::error_code prepare() noexcept;
    // The next piece of the output, valid until the next call; empty once the whole output was
    // handed out. Allocates nothing.
    std::span<const std::byte> next() noexcept;

  private:
    class impl;
    std::unique_ptr<impl> impl_;
};

// Writes `rec` in `o.format` to `sink`: an exporter's three steps, its pieces handed to the sink
// as they come. Evaluation is the library's (evaluate, resampler): a glTF keyframe's values are
// exactly the row `inputanim sample` prints at its time, converted to glTF's right-handed
// coordinates. The recording's bytes must stay readable (a mapping is the caller's to guard, as
// for evaluation). With `mapped`, the region of a mapping the recording reads, every read of it
// runs under guarded() and the sink's writes outside, so that a page cut off is source_failed.
export_result export_recording(const recording& rec, byte_sink& sink, const export_options& o,
                               std::span<const std::byte> mapped = {});

}  // namespace inputanim

template <>
struct std::is_error_code_enum<inputanim::export_error> : std::true_type {};
