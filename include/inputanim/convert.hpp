// Conversion of a recording to another version or layout, optionally cut to a time window,
// shifted to start at 0 and thinned as MRTK thins: curve by curve through the writer's encoder,
// so that memory does not grow with the file (docs/DESIGN.md, "convert").
//
//     inputanim::recording rec;
//     if (inputanim::error e = rec.open(bytes)) ...
//     inputanim::convert_options o;              // v1.1 compact, every key, no shift
//     o.from = 2.0f;
//     o.to = 5.0f;
//     std::vector<std::byte> out;
//     inputanim::vector_sink sink(out);
//     const inputanim::convert_result r = inputanim::convert(rec, sink, o);
//     if (r.error) ...                           // bad options, or the sink's failure
//     if (r.markers_dropped != 0) ...            // what the conversion left out, for warnings
//
// What the output holds:
// - The target's header (1.0, or 1.1 with `layout`). A v1.1 target keeps the source's blocks; a
//   v1.0 target holds camera and hands (389 curves): a source without one of them gives that
//   block's curves empty (wrap modes 8/8, MRTK's), and the source's eye gaze is left out.
// - Each curve with the source's wrap modes and keys, looked up by curve_id (the source's curve
//   order does not matter). Full keyframes keep their tangents, weights and weighted mode when
//   the target is full too; keys from compact or bool keyframes get MRTK's (0, 0, 0, 0, 3); a
//   compact target keeps time and value only.
// - A marker list, always: MRTK reads one after the curves, so a source without a list (one that
//   follows the published page, or a pre-release file whose markers are unknown) gets an empty
//   one (marker_list_added).
// With a v1.1 compact, v1.1 full or v1.0 source converted to its own version and layout and no
// other option, the output is the source's bytes (a marker name's length is written in the
// shortest form, as every writer does).
//
// The time window [from, to] (either end may be left open) keeps the keys at times inside it,
// and the markers inside it. Where a curve has keys on the far side of an end, a key is added at
// that end with the value `evaluate` gives there, so that playback inside the window is the
// source's: exactly so for linear segments (compact keys, MRTK's full keys) and for stepped ones
// (an infinite tangent, which the added key carries on); a curved segment (Hermite, weighted)
// that an end cuts becomes linear from the end to its next key (counted in curved_edges). A bool
// curve gets a key at `from` only (a step holds to the end), or at `to` when it would have none.
// With shift_to_zero every key and marker time is reduced by the window's start: `from`, or
// without it the source's first key time (summary().start). A time that the float subtraction
// would make equal to the previous key's is moved to the next float after it (keys_nudged). A
// shifted time that would pass the largest float (keys or markers far from the window's start,
// anywhere in float's range) is refused, convert_error::shift_out_of_range: so a source valid at
// level full always converts to a file valid at level full, or not at all.
//
// Thinning (MRTK's, inputanim/thin.hpp) runs on the keys the window kept: the curves of one
// vector (position x/y/z, rotation x/y/z/w, gaze origin, gaze direction) together when they share
// their key times, else each curve alone at the same tolerance; every kept key is a source key
// (or an added edge key), so each curve evaluates within the tolerance of the source at every
// source key time. A full target's curve whose keys are not all MRTK's linear ones is not
// thinned (curves_not_thinned): the tolerance is measured on straight lines. A bool curve keeps
// its first key and each key whose value differs from the last kept one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <system_error>

#include "inputanim/format.hpp"
#include "inputanim/recording.hpp"
#include "inputanim/thin.hpp"
#include "inputanim/writer.hpp"

namespace inputanim {

// Why a conversion stopped for a reason of its own, neither its options' (option_error) nor the
// sink's: a std::error_code of the category named "inputanim.convert".
enum class convert_error : std::uint8_t {
    none,
    // stream_converter: the bytes do not frame as a v1 recording (below). Equivalent to no
    // std::errc condition: none means this (illegal_byte_sequence is about characters).
    cannot_frame,
    // shift_to_zero would move a time the output keeps past the largest float: equivalent to
    // std::errc::result_out_of_range, a numerical result out of range.
    shift_out_of_range,
};
const std::error_category& convert_error_category() noexcept;
std::error_code make_error_code(convert_error e) noexcept;

struct convert_options {
    // The target version 1.minor: 0 or 1.
    int minor = 1;
    // For a v1.1 target; v1.0 is always full.
    inputanim::layout layout = layout::compact;
    // The time window, inclusive; each end finite, from <= to.
    std::optional<float> from;
    std::optional<float> to;
    bool shift_to_zero = false;
    // MRTK's thinning at these tolerances; none when empty.
    std::optional<thinning> thin;
    // Called with source bytes the conversion has finished reading and will not read again (in
    // file order within a curve, a piece per few hundred KiB): a caller that mapped a large file
    // can give the pages back (madvise) so that memory stays bounded. May be empty.
    std::function<void(std::span<const std::byte>)> consumed;
    // What reads the file that the source's bytes map (a loaded_recording's input), or null: the
    // keys of the curves that go in blocks (convert() below) are then read from it into a buffer
    // of 256 KiB, not through the mapping. For one pass over a large file the kernel's copy is
    // faster than faulting in and walking the mapping's 4 KiB pages (docs/PERFORMANCE.md).
    const offset_source* source = nullptr;

    // The first option convert() refuses (option_error: bad_version, bad_layout,
    // window_not_finite, window_reversed, or the thinning's); a false code when there is none.
    std::error_code problem() const noexcept;
    // Whether the conversion takes every key in file order (no window, no shift, no thinning):
    // what stream_converter does.
    bool sequential() const noexcept { return !from && !to && !shift_to_zero && !thin; }
};

struct convert_result {
    // The options' problem() when they have one (nothing written);
    // convert_error::shift_out_of_range when shift_to_zero would move a time the window keeps past
    // the largest float (nothing written, except when only the nudges that keep key times
    // increasing take one past it near the top of float's range: the sink then holds part of a
    // file, to be thrown away); else the failure of a read from options.source (then
    // source_failed; std::errc::io_error when the file ended early); else the encoder's first
    // error (the sink's failure).
    std::error_code error;
    bool source_failed = false;

    // What the conversion changed or left out, so that a tool can warn.
    // v1.0 target: the source's eye gaze curves, and their keys.
    std::uint32_t gaze_curves_dropped = 0;
    std::uint64_t gaze_keys_dropped = 0;
    // v1.0 target: curves written empty because the source lacks their block.
    std::uint32_t empty_curves_added = 0;
    // Compact target: curves with keys whose tangents, weights or weighted mode were not MRTK's
    // (0, 0, 0, 0, 3), and those keys: the compact layout cannot hold them, and playback of
    // those curves becomes linear.
    std::uint32_t curved_curves = 0;
    std::uint64_t curved_keys = 0;
    // Window: source keys outside it, keys added at its ends, curved segments an end cut, and
    // markers outside it.
    std::uint64_t keys_outside = 0;
    std::uint64_t edge_keys_added = 0;
    std::uint32_t curved_edges = 0;
    std::uint32_t markers_dropped = 0;
    // The source had no marker list; the output has an empty one.
    bool marker_list_added = false;
    // shift_to_zero: keys moved to the float after their predecessor's time.
    std::uint64_t keys_nudged = 0;
    // Thinning: keys removed, and curves left whole because they are not linear.
    std::uint64_t keys_thinned = 0;
    std::uint32_t curves_not_thinned = 0;
    // Keys and markers written.
    std::uint64_t keys_written = 0;
    std::uint32_t markers_written = 0;
};

// Whether convert(source, sink, options) writes exactly source.bytes(): a v1 source to its own
// version and layout, with no window, shift or thinning, a marker list, and every marker name's
// length in the shortest form. A caller may then copy the bytes (copy_file_range) rather than
// decode and encode every key. Reads the marker list (under the guard for a mapping).
bool converts_to_itself(const recording& source, const convert_options& options = {}) noexcept;

// Writes `source` (a recording opened without error, whose bytes are readable) to `sink` as
// `options` say. Allocates only the thinning's buffers (when options.thin is set) and the read
// buffer (when options.source is set); reads the source's bytes once per key (twice for
// thinned curves) in the target's curve order. A curve that is not thinned goes in blocks: its
// keys copied, or transcoded between the layouts by the block kernels (chosen once, as
// validate's), their times shifted in the block, and handed to the sink in pieces of 32 KiB
// (256 KiB straight from the source when nothing changes).
convert_result convert(const recording& source, byte_sink& sink,
                       const convert_options& options = {});

// The conversion of a v1 recording that arrives in file order, piece by piece (a gzip file
// inflated as it is read, standard input), for options that are sequential(): each key is
// transcoded and written as it arrives, so nothing of the source is held but a key, a curve
// header or a marker field that straddles two pieces. The output and the result are convert()'s
// for the same recording, byte for byte (a source valid at level structure).
//
//     inputanim::stream_converter c(layout::compact, sink, options);   // the source's layout
//     while (auto piece = next()) c.feed(*piece);                       // from its first byte
//     const inputanim::convert_result& r = c.finish();
//
// It does not validate: the caller feeds the same bytes to a validator (chunk_validator, whose
// layout_known() gives the source's layout before a key is read) and throws the output away when
// the verdict is an error. Bytes it cannot frame (a header without the magic or of another
// version, a negative count, a name length over the format's Int32, a source cut short or with
// bytes after its marker list) end the conversion with convert_error::cannot_frame.
// Allocates its buffers (about 53 KiB) once, when constructed (std::errc::not_enough_memory
// when refused), and nothing while it converts.
class stream_converter {
  public:
    // `source`: the layout of the source's v1.1 float keys (v1.0 is always full). Options that
    // are not sequential(), or that convert() refuses, are the result's error at once.
    stream_converter(inputanim::layout source, byte_sink& sink, const convert_options& options);
    stream_converter(const stream_converter&) = delete;
    stream_converter& operator=(const stream_converter&) = delete;
    ~stream_converter();

    // The source's next bytes. Returns the result's error (the first: later bytes are ignored).
    std::error_code feed(std::span<const std::byte> bytes);
    // The end of the source: the marker list written (an empty one when the source has none),
    // the encoder finished.
    const convert_result& finish();
    const convert_result& result() const noexcept { return result_; }

  private:
    class impl;
    convert_result result_;
    std::unique_ptr<impl> impl_;
    bool finished_ = false;
};

}  // namespace inputanim

template <>
struct std::is_error_code_enum<inputanim::convert_error> : std::true_type {};
