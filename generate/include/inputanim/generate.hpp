// Synthetic recordings for tests, benchmarks and `inputanim gen`: a person walking slowly and
// looking around, both hands moving in front of them with bending fingers, tracking and pinching
// that come and go, and eye gaze that fixates and saccades. Deterministic for a seed.
//
//     inputanim::generate_options o;
//     o.seconds = 60;
//     o.seed = 7;
//     inputanim::model m;
//     if (std::error_code ec = inputanim::generate(o, m)) fail(ec.message());
//     std::vector<std::byte> bytes = inputanim::write(m);
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

    // The first option that cannot be generated (option_error: bad_seconds, bad_rate,
    // too_many_samples, rate_too_high for steps float32 key times cannot keep strictly
    // increasing, bad_version, bad_layout, bad_markers, or the tolerances' problem); a false code
    // when there is none.
    std::error_code problem() const noexcept;
};

// The recording as a model in `out` (its curves in file order hold the generated keys), or the
// options' problem, leaving `out` as it was.
std::error_code generate(const generate_options& options, model& out);

// Generates one curve at a time, in file order, calling `sink` with each (the curve is valid only
// during the call): memory stays proportional to one curve's samples, whatever the duration.
// Markers are not passed. Returns the options' problem, before any curve, when they have one.
std::error_code generate_curves(const generate_options& options,
                                const std::function<void(curve_id, const curve&)>& sink);

// Writes the recording's bytes to `sink` curve by curve through the writer's encoder, without
// holding the model: the bytes are exactly those of write() of generate()'s model. Returns the
// options' problem (nothing written), else the encoder's first error (the sink's failure).
std::error_code generate_to(const generate_options& options, byte_sink& sink);
// The same into a stream: a failed write is std::errc::io_error, and stays in `out`'s state.
std::error_code generate_to(const generate_options& options, std::ostream& out);

}  // namespace inputanim
