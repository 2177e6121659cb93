// Metrics and events of a recording as MRTK plays it (docs/METRICS.md defines every one): hand
// tracking and pinches, hand and head motion, gaze fixations and saccades (I-VT), all measured on
// the resampler's fixed-rate grid t_i = t0 + i / rate from the first key time t0 to the last.
// One pass over the grid evaluates the 23 curves the metrics read; nothing is allocated, and
// events go to a sink the caller provides, in the order they end.
//
//     inputanim::recording_metrics m;
//     if (std::error_code ec = inputanim::measure(rec, {}, m)) fail(ec.message());
//     if (m.gaze) print(m.gaze->fixations);            // no gaze curves: no gaze metrics
//     if (m.hands[0]) print(m.hands[0]->path_length);  // the left hand (index: side)
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>
#include <system_error>

#include "inputanim/evaluate.hpp"
#include "inputanim/format.hpp"
#include "inputanim/recording.hpp"

namespace inputanim {

// The parameters of measure(). Times are in seconds, angles in degrees.
struct metrics_options {
    // Grid points per second.
    double rate = 60.0;
    // The joint whose position is each hand's motion.
    inputanim::joint joint = joint::palm;
    // A gaze sample whose angular velocity is below this (degrees per second) is a fixation
    // sample.
    double fixation_velocity = 30.0;
    // Two fixations closer than this in time whose mean directions are closer than merge_angle
    // are one.
    double merge_gap = 0.075;
    double merge_angle = 0.5;
    // Fixations shorter than this (after merging) are dropped.
    double min_fixation = 0.1;
    // The most grid samples measured; a recording with more is refused (grid_error::
    // too_many_rows) before any is evaluated.
    std::uint64_t max_samples = unlimited_rows;

    // The first problem of the options alone (a rate the grid refuses, a joint out of range, a
    // threshold that is negative or not finite); a false code when there is none.
    std::error_code problem() const noexcept;
};

// Why measure() refused, besides the grid's reasons (grid_error: bad_rate, bad_time for key
// times that are not finite, too_many_rows past max_samples).
enum class metrics_error : std::uint8_t {
    none,
    bad_joint,
    bad_fixation_velocity,
    bad_merge_gap,
    bad_merge_angle,
    bad_min_fixation,
    // Consecutive grid points round to the same float32 time (times far from 0 at a high rate):
    // the speeds, defined per grid step, would not be.
    shared_times,
};
std::string_view metrics_error_name(metrics_error e) noexcept;
// Category "inputanim.metrics"; none is a false code.
const std::error_category& metrics_error_category() noexcept;
std::error_code make_error_code(metrics_error e) noexcept;

// An event on the grid: from sample `start_sample` to sample `end_sample`, at the float32 times
// the curves are evaluated at (float(t0 + i / rate); past the last sample the grid continues).
// A tracked interval, gap or pinch ends at the first sample after it; a fixation at its last
// sample; a saccade runs from one fixation's last sample to the next one's first.
struct grid_interval {
    std::uint64_t start_sample = 0;
    std::uint64_t end_sample = 0;
    float start = 0.0f;
    float end = 0.0f;
    // (end_sample - start_sample) / rate, seconds.
    double duration = 0.0;
    friend bool operator==(const grid_interval&, const grid_interval&) = default;
};

struct fixation {
    grid_interval when;
    // The normalised mean of the fixation samples' normalised directions.
    vec3 direction;
    // The mean gaze origin over the same samples.
    vec3 origin;
};

struct saccade {
    grid_interval when;
    // The angle between the two fixations' directions, degrees.
    double amplitude = 0.0;
};

// Receives the events of measure(); every function does nothing unless overridden. Each kind's
// events of one hand come in time order; kinds and hands interleave in the order events end.
// What a function throws leaves measure() (which throws nothing itself).
class metrics_sink {
  public:
    virtual void tracked(side, const grid_interval&) {}
    virtual void gap(side, const grid_interval&) {}
    virtual void pinch(side, const grid_interval&) {}
    virtual void fixation(const inputanim::fixation&) {}
    virtual void saccade(const inputanim::saccade&) {}

  protected:
    ~metrics_sink() = default;
};

// The kinds of events a metrics_sink receives, one table each: tracked intervals and gaps,
// pinches, fixations, saccades.
enum class event_kind : std::uint8_t { tracking, pinch, fixations, saccades };
// "tracking", "pinch", "fixations", "saccades": the names of `inputanim metrics --events` and of
// Python's metrics_events.
std::string_view event_kind_name(event_kind kind) noexcept;
std::optional<event_kind> parse_event_kind_name(std::string_view name) noexcept;
// Whether a kind's events are a hand's (tracking and pinch), listed by hand, then time.
constexpr bool is_hand_event(event_kind kind) noexcept {
    return kind == event_kind::tracking || kind == event_kind::pinch;
}

// Motion over pairs of consecutive samples (for a hand, both tracked) with finite positions.
struct motion_metrics {
    // Metres.
    double path_length = 0.0;
    // The pairs' time (pairs / rate), seconds.
    double time = 0.0;
    // path_length / time and the largest step x rate, metres per second; none without a pair.
    std::optional<double> mean_speed;
    std::optional<double> peak_speed;
};

struct hand_metrics {
    std::uint64_t tracked_samples = 0;
    // tracked_samples / samples.
    double coverage = 0.0;
    // Untracked intervals between two tracked ones: count, total and longest duration.
    std::uint64_t gaps = 0;
    double gap_time = 0.0;
    std::optional<double> longest_gap;
    // Intervals both pinching and tracked: count and total duration.
    std::uint64_t pinches = 0;
    double pinch_time = 0.0;
    // Of metrics_options::joint.
    motion_metrics motion;
};

struct head_metrics {
    // Of the camera position, over every pair of consecutive samples.
    motion_metrics motion;
    // The sum of the angles between consecutive normalised camera rotations, degrees.
    double rotation = 0.0;
    // The largest of those angles x rate, degrees per second; none without a pair.
    std::optional<double> peak_angular_speed;
};

struct gaze_metrics {
    // Samples with a gaze direction (finite origin, finite non-zero direction).
    std::uint64_t samples = 0;
    std::uint64_t fixations = 0;
    double fixation_time = 0.0;
    std::optional<double> mean_fixation_duration;
    std::optional<double> longest_fixation;
    std::uint64_t saccades = 0;
    // Degrees.
    std::optional<double> mean_saccade_amplitude;
};

struct recording_metrics {
    // Grid samples: 0 for a recording without keys.
    std::uint64_t samples = 0;
    // The first and last sample's times; none without samples.
    std::optional<float> start;
    std::optional<float> end;
    // Samples at which some value the metrics read is not finite (a file that passed only the
    // structure checks); such values are left out of the metrics (docs/METRICS.md).
    std::uint64_t nonfinite_samples = 0;
    // Indexed by side (left 0, right 1); none when the file lacks the hand's tracked curve or it
    // has no key.
    std::array<std::optional<hand_metrics>, 2> hands;
    // None when the file lacks the camera curves or none has a key.
    std::optional<head_metrics> head;
    // None when the file lacks the gaze curves or none has a key (every v1.0 file).
    std::optional<gaze_metrics> gaze;
};

// Measures `rec` on the grid of `options`, writing the metrics into `out` and every event to
// `events` when it is not null. A recording without keys has no samples and no metrics (not an
// error). On error `out` is left as it was and no event is sent. Does not allocate.
std::error_code measure(const recording& rec, const metrics_options& options,
                        recording_metrics& out, metrics_sink* events = nullptr);

}  // namespace inputanim

template <>
struct std::is_error_code_enum<inputanim::metrics_error> : std::true_type {};
