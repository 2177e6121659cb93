// MRTK's keyframe thinning (Ramer-Douglas-Peucker, FORMAT.md section 8: joints 1 mm / 0.02 deg),
// one definition for the generator (`inputanim gen`) and the converter (`inputanim convert
// --thin`).
//
//     inputanim::thinner t;
//     std::vector<std::uint8_t> keep(times.size());
//     const std::span<const float> xyz[] = {x, y, z};
//     t.keep_run(times, xyz, 0, times.size() - 1, tolerances.position, tolerances.partition,
//                keep);
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <system_error>
#include <utility>
#include <vector>

#include "inputanim/error.hpp"

namespace inputanim {

// Tolerances of the thinning. As in MRTK, the curves of one vector are thinned together (position
// x/y/z, rotation x/y/z/w, gaze direction x/y/z), so they share their key times; within each run
// of samples a removed sample's distance from the straight line through the kept keys (linear
// interpolation in time, which is how compact keys are played back) is at most the tolerance.
// The error of every single curve is therefore within it too.
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
    // consecutive keys are at most this many samples apart; 0 thins each run as a whole.
    int partition = 32;

    // The Euclidean tolerances the thinning compares with: on a quaternion's four components,
    // and on a unit direction's three.
    double rotation_distance() const noexcept;
    double direction_distance() const noexcept;

    // The first tolerance thinning cannot use (option_error: bad_position_tolerance,
    // bad_rotation_tolerance, bad_partition); a false code when there is none.
    std::error_code problem() const noexcept;
};

// Ramer-Douglas-Peucker over the samples of one vector (1 to 4 components sharing their times).
// Holds the work list between calls, so that thinning many runs allocates only while it grows.
class thinner {
  public:
    // Marks in `keep` (one flag per sample, never cleared here) the samples of [first, last] the
    // thinning keeps: both ends, the ends of each partition of `partition` samples (0: none), and
    // within each partition every sample whose removal would put a removed sample further than
    // `tolerance` from the line through its kept neighbours. `components[d][i]` is component d of
    // sample i, at `times[i]`; times must increase within the run. Iterative, so a long run
    // without partitions does not recurse deep.
    void keep_run(std::span<const float> times, std::span<const std::span<const float>> components,
                  std::size_t first, std::size_t last, double tolerance, int partition,
                  std::span<std::uint8_t> keep);

  private:
    void thin(std::span<const float> times, std::span<const std::span<const float>> components,
              std::size_t a, std::size_t b, double tolerance_squared, std::span<std::uint8_t> keep);

    std::vector<std::pair<std::size_t, std::size_t>> stack_;
};

}  // namespace inputanim
