// Synthetic recordings for tests, benchmarks and `inputanim gen`: a person walking slowly and
// looking around, both hands moving in front of them with bending fingers, tracking and pinching
// that come and go, and eye gaze that fixates and saccades. Deterministic for a seed.
//
//     inputanim::generate_options o;
//     o.seconds = 60;
//     o.seed = 7;
//     std::vector<std::byte> bytes = inputanim::write(inputanim::generate(o));
//
// Every motion is sampled at i / rate seconds (i = 0 .. floor(seconds x rate)) and each curve is
// then thinned as MRTK 2.6+ does (Ramer-Douglas-Peucker, `thinning` in inputanim/thin.hpp) unless
// `raw` is set. Bool curves always have a key at time 0 and one at each change, as MRTK writes
// them; while a hand is not tracked its joint curves have no keys; the None joint's curves are
// always empty.
#pragma once

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <string_view>
#include <system_error>

#include "inputanim/format.hpp"
#include "inputanim/thin.hpp"
#include "inputanim/writer.hpp"

namespace inputanim {

struct generate_options {
    double seconds = 10;
    // Samples per second.
    double rate = 60;
    // 0: v1.0 (camera and hands, full keyframes with MRTK's (0, 0, 0, 0, 3) tangents, weights and
    // mode; a block switched off in `blocks` is written with empty curves, gaze is never
    // written). 1: v1.1 with `layout` and `blocks`.
    int minor = 1;
    inputanim::layout layout = layout::compact;
    block_flags blocks{};
    // Markers spread over the recording, named "marker 1", "marker 2 — café", "マーカー 4 🎯", ...
    int markers = 0;
    std::uint64_t seed = 1;
    // Keep every sample of every float curve (no thinning): for very large benchmark files.
    bool raw = false;
    thinning tolerances{};

    // Empty when the options can be generated; otherwise what is wrong with them (a negative or
    // non-finite duration, a rate whose steps float32 key times cannot keep strictly increasing,
    // more than 2^31-1 samples, an unknown minor version, a negative marker count or tolerance).
    std::string_view problem() const noexcept;
};

// The recording as a model (its curves in file order hold the generated keys). Throws
// std::invalid_argument with `problem()` when the options are not usable.
model generate(const generate_options& options);

// Generates one curve at a time, in file order, calling `sink` with each (the curve is valid only
// during the call): memory stays proportional to one curve's samples, whatever the duration.
// Markers are not passed. Throws like `generate`.
void generate_curves(const generate_options& options,
                     const std::function<void(curve_id, const curve&)>& sink);

// Writes the recording's bytes to `sink` curve by curve through the writer's encoder, without
// holding the model: the bytes are exactly write(generate(options)). Returns the encoder's first
// error (the sink's failure). Throws like `generate`.
std::error_code generate_to(const generate_options& options, byte_sink& sink);
// The same into a stream: a failed write is std::errc::io_error, and stays in `out`'s state.
std::error_code generate_to(const generate_options& options, std::ostream& out);

}  // namespace inputanim
