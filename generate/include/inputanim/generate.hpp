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
// then thinned as MRTK 2.6+ does (Ramer-Douglas-Peucker, see `thinning`) unless `raw` is set.
// Bool curves always have a key at time 0 and one at each change, as MRTK writes them; while a
// hand is not tracked its joint curves have no keys; the None joint's curves are always empty.
#pragma once

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <string_view>
#include <system_error>

#include "inputanim/format.hpp"
#include "inputanim/writer.hpp"

namespace inputanim {

// Tolerances of the Ramer-Douglas-Peucker thinning. As in MRTK, the curves of one vector are
// thinned together (position x/y/z, rotation x/y/z/w, gaze direction x/y/z), so they share their
// key times; within each run of samples a removed sample's distance from the straight line
// through the kept keys (linear interpolation in time, which is how compact keys are played back)
// is at most the tolerance. The error of every single curve is therefore within it too.
struct thinning {
    // Metres, for camera and joint positions and the gaze origin.
    double position = 0.001;
    // Degrees, for camera and joint rotations and the gaze direction. It becomes a Euclidean
    // distance on the unit vectors: two unit quaternions q, p (q.p >= 0) that differ by a
    // rotation of a degrees are 2 sin(a/4) apart, so rotations use 2 sin(rotation_degrees/4)
    // (0.02 degree: 1.745e-4 on the quaternion's components); two unit directions a degrees apart
    // are 2 sin(a/2) apart, which the gaze direction uses. MRTK compares the angle instead; both
    // agree to second order in the (tiny) shortfall of an interpolated quaternion from unit length.
    double rotation_degrees = 0.02;
    // MRTK thins partitions of this many samples independently and keeps their ends, so
    // consecutive keys are at most this many samples apart; 0 thins each run as a whole. A run
    // is every sample, or for joints each stretch while the hand is tracked (both ends kept).
    int partition = 32;
};

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
