// Evaluation of curves as MRTK playback computes them (Unity AnimationCurve.Evaluate, FORMAT.md
// section 7), poses at a time, and resampling onto a fixed-rate time grid. Nothing here
// allocates; every result is a value.
//
//     inputanim::curve_sampler x(*rec.camera(inputanim::pose_channel::position_x));
//     for (float t = 0; t < 10; t += 1.0f / 60) use(x(t));   // == evaluate(curve, t), O(1) each
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <system_error>

#include "inputanim/format.hpp"
#include "inputanim/recording.hpp"
#include "inputanim/views.hpp"

namespace inputanim {

// The value of a curve at time `t`.
// - 0 keys: 0. 1 key: its value.
// - Before the first key the pre-wrap mode applies, after the last the post-wrap mode: Loop (2)
//   repeats, PingPong (4) reflects, every other mode holds the end value. A repeating mode at an
//   infinite `t` has no phase: NaN.
// - The segment's left key is the last key with time <= t; at a key's time the value is that
//   key's. Bool curves are steps (0 or 1 in a valid file); compact keyframes are linear; full
//   keyframes are stepped (infinite tangent), weighted Bezier (left mode Out or right mode In:
//   the smallest root u in [0, 1] of the time cubic) or Hermite.
// - Arithmetic is in double; results beyond the float range saturate to +-FLT_MAX, so finite
//   keys and a finite `t` always give a finite value. A NaN `t` gives NaN.
// Keys out of time order (an invalid file) give some key's segment, never a read out of bounds.
float evaluate(const curve_view& c, float t) noexcept;

// The state of a bool curve at `t` as MRTK playback reads it: evaluate(c, t) > 0.5.
bool evaluate_bool(const curve_view& c, float t) noexcept;

// Sequential evaluation of one curve: returns exactly (bit for bit) what `evaluate` returns. For
// non-decreasing times it moves a cursor forward, amortized O(1) per call for a dense time grid
// and O(log gap) for a jump; an earlier time falls back to a binary search. The bytes behind the
// curve must outlive the sampler.
class curve_sampler {
  public:
    curve_sampler() noexcept = default;
    explicit curve_sampler(const curve_view& c) noexcept : curve_(c) {}

    float operator()(float t) noexcept;
    bool state(float t) noexcept { return (*this)(t) > 0.5f; }

    const curve_view& curve() const noexcept { return curve_; }

  private:
    curve_view curve_{};
    // The left key of the previous lookup.
    std::size_t cursor_ = 0;
};

struct vec3 {
    float x = 0.0f;
    float y = 0.0f;
    float z = 0.0f;
    friend bool operator==(const vec3&, const vec3&) = default;
};

struct quat {
    float x = 0.0f;
    float y = 0.0f;
    float z = 0.0f;
    float w = 1.0f;
    friend bool operator==(const quat&, const quat&) = default;
};

struct pose {
    vec3 position;
    quat rotation;
    friend bool operator==(const pose&, const pose&) = default;
};

struct ray {
    vec3 origin;
    vec3 direction;
    friend bool operator==(const ray&, const ray&) = default;
};

// MRTK evaluates the four rotation curves independently and uses the result as it is.
enum class rotation : std::uint8_t { as_played, normalized };

// `q` scaled to unit length (computed in double); the identity when its length is 0 or not
// finite, as for the zero quaternions of the None joint.
quat normalized(const quat& q) noexcept;

// Poses, rays and hand states at time `t`, each curve evaluated with `evaluate`. Empty when the
// file does not hold the curves (an absent v1.1 block) or none of them has a key (a joint never
// seen); a curve without keys among curves with keys reads 0, as MRTK plays it.
std::optional<pose> camera_pose(const recording& rec, float t,
                                rotation r = rotation::as_played) noexcept;
std::optional<pose> joint_pose(const recording& rec, side s, joint j, float t,
                               rotation r = rotation::as_played) noexcept;
std::optional<ray> gaze_ray(const recording& rec, float t) noexcept;
std::optional<bool> hand_tracked(const recording& rec, side s, float t) noexcept;
std::optional<bool> hand_pinching(const recording& rec, side s, float t) noexcept;

// Why a time grid was refused.
enum class grid_error : std::uint8_t {
    none,
    // The rate is not finite, not positive, or so small that the step 1 / rate overflows.
    bad_rate,
    // `from` or `to` is not finite or lies outside the float range.
    bad_time,
    // `from` or `to` was left to the recording, which has no keys.
    no_keys,
    // More rows than the caller's ceiling, or 2^52 grid points or more (past that, i / rate no
    // longer tells consecutive points apart).
    too_many_rows,
};
std::string_view grid_error_name(grid_error e) noexcept;
// grid_error as a std::error_code (category "inputanim.grid"; none is a false code), so that
// the library's errors share one model: errc, grid_error and the system's codes.
const std::error_category& grid_error_category() noexcept;
std::error_code make_error_code(grid_error e) noexcept;

// The default ceiling of resampler::set_grid: no ceiling below the grid's own 2^52 points.
inline constexpr std::uint64_t unlimited_rows = std::uint64_t{1} << 52;

// Samples selected curves of a recording on a fixed-rate time grid.
//
// The grid points are t_i = from + i / rate (computed in double from i, so there is no drift)
// for every i with i / rate <= to - from (or past it by less than a millionth of a step, which
// decimal ranges need: 0.1 + 2 / 10 > 0.3). Curves are evaluated at float times, and far from 0
// several consecutive points can round to the same float (from 1e20 at 60 Hz, every point does):
// a point whose float(t_i) equals the previous point's is left out. So the rows are the distinct
// values of float(t_i), in increasing order, one row each: row k holds the first point with that
// float time. Rows and their count are found in closed form (a point's index is computed from a
// float time, never by stepping through points), so the work is proportional to the rows.
//
// Each row is evaluated at its float time with one curve_sampler per curve, so a row's values
// are exactly evaluate(curve, row time). The object holds its samplers inline (no allocation);
// the recording's bytes must outlive it.
//
//     inputanim::resampler rs(rec);
//     rs.select("hand.left.joint.*.position.*");
//     if (rs.set_grid(60.0) == inputanim::grid_error::none) {
//         std::vector<float> row(rs.curves().size());
//         while (auto t = rs.next(row)) print(*t, row);
//     }
class resampler {
  public:
    // Selects no curve; the grid is empty until set_grid succeeds.
    explicit resampler(const recording& rec) noexcept : rec_(&rec) {}
    // The recording must outlive the resampler.
    explicit resampler(recording&&) = delete;

    // Adds every curve of the recording. Adding curves keeps the grid (rewind() to sample them
    // from its first row): a copy of a resampler whose grid is set takes other curves without
    // counting its rows again.
    void select_all() noexcept;
    // Adds the curves of the recording whose path matches `glob` (path_matches) and returns how
    // many curves of the recording it matched, including ones already selected.
    std::size_t select(std::string_view glob) noexcept;
    // Adds the curves `ids` that the recording holds and returns how many it holds: for a caller
    // that knows its curves, without matching every path against a glob for each.
    std::size_t select(std::span<const curve_id> ids) noexcept;
    // The selected curves, in file order, each once: the columns of a row.
    std::span<const curve_id> curves() const noexcept { return {ids_.data(), count_}; }

    // `from` defaults to the recording's first key time, `to` to its duration (last key time).
    // `to` before `from` is a grid without rows. More than `max_rows` rows is too_many_rows,
    // found before rows are counted past it (the cost of the refusal is bounded by max_rows).
    // On error the grid has no rows; point_count() still holds the points when there were fewer
    // than 2^52. Rewinds to the first row.
    grid_error set_grid(double rate, std::optional<double> from = std::nullopt,
                        std::optional<double> to = std::nullopt,
                        std::uint64_t max_rows = unlimited_rows) noexcept;
    // The grid points from `from` to `to`, before the points sharing a float time are left out.
    std::uint64_t point_count() const noexcept { return points_; }
    // The rows: point_count() unless some points share a float time.
    std::uint64_t row_count() const noexcept { return rows_; }
    // The time of row i (i < row_count()) as the curves are evaluated at. O(1) when no point was
    // left out (row_count() == point_count()); otherwise it goes through the rows before it.
    float row_time(std::uint64_t i) const noexcept;
    // The float time of grid point i (i < point_count()), also after too_many_rows.
    float point_time(std::uint64_t i) const noexcept;
    // After too_many_rows over max_rows: the rows of the whole grid when they are known without
    // counting them one by one (every point is a row: the step is at least twice the float
    // spacing at the largest time), else 0 (the count stopped past max_rows).
    std::uint64_t refused_rows() const noexcept { return refused_rows_; }

    // Writes the values of the next row into out[0, curves().size()) and returns its time;
    // nullopt after the last row or when `out` is smaller than curves().size().
    std::optional<float> next(std::span<float> out) noexcept;
    // The index of the row `next` writes.
    std::uint64_t position() const noexcept { return next_row_; }
    void rewind() noexcept {
        next_row_ = 0;
        next_point_ = 0;
    }

  private:
    void rebuild() noexcept;
    // The first point after point i whose float time is greater than point i's (point_count()
    // when there is none).
    std::uint64_t next_distinct(std::uint64_t i) const noexcept;

    const recording* rec_;
    std::array<bool, curve_id_count> selected_{};
    std::array<curve_id, curve_id_count> ids_{};
    std::array<curve_sampler, curve_id_count> samplers_{};
    std::size_t count_ = 0;
    double from_ = 0.0;
    double to_ = 0.0;
    double rate_ = 1.0;
    std::uint64_t points_ = 0;
    std::uint64_t rows_ = 0;
    std::uint64_t refused_rows_ = 0;
    std::uint64_t next_row_ = 0;
    // The point of row next_row_.
    std::uint64_t next_point_ = 0;
};

}  // namespace inputanim

template <>
struct std::is_error_code_enum<inputanim::grid_error> : std::true_type {};
