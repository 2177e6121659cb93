// The comparison of two recordings (docs/DIFF.md): their structure, their motion as MRTK plays it
// on a common fixed-rate grid, their tracked and pinch intervals, their markers and, when asked,
// their keys bit for bit. The grid is streamed row by row through two resamplers; the report holds
// one accumulator per compared pose (maximum, RMS, first time past the tolerance) and lists of at
// most `max_listed` entries each, so its size does not grow with the recordings' length.
//
//     inputanim::comparison c;
//     if (std::error_code ec = inputanim::compare(a, b, {}, c)) fail(ec.message());
//     if (!c.same()) print(c);
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string_view>
#include <system_error>
#include <vector>

#include "inputanim/evaluate.hpp"
#include "inputanim/format.hpp"
#include "inputanim/recording.hpp"
#include "inputanim/time_window.hpp"
#include "inputanim/writer.hpp"

namespace inputanim {

// A difference equal to a tolerance is within it, and so is one past it by float32 rounding
// (docs/DIFF.md, "Tolerances"): a file thinned with MRTK's tolerances (1 mm, 0.02 degree)
// compares equal to its source.
struct compare_tolerances {
    // Metres, for the head's and joints' positions and the gaze origin.
    double position = 0.001;
    // Degrees, for rotations and the gaze direction.
    double angle = 0.5;
    // Seconds, for the ends of tracked and pinch intervals and for marker times.
    double time = 0.02;
};

struct compare_options {
    // Grid points per second.
    double rate = 60.0;
    // In A's time. Open ends default to the earlier first key time of the two and the later
    // duration; shifted (an offset, or `align`), to the span both takes cover (B's times less
    // the offset), or the span either covers when they share none.
    time_window window;
    compare_tolerances tolerance;
    // Seconds: B's time of a moment minus A's (0.4 when B's take started 0.4 s later). B is
    // evaluated at each grid time plus the offset, and its markers' times less it are compared;
    // every time of the report (the grid, the window, intervals, markers) is A's.
    double offset = 0.0;
    // Estimate the offset from the head's motion (estimate_offset) and compare with it instead
    // of `offset`.
    bool align = false;
    // Also compare the keys themselves, bit for bit (key_difference).
    bool keys = false;
    // A grid with more rows is refused (grid_error::too_many_rows) before a row is evaluated.
    std::uint64_t max_rows = unlimited_rows;
    // The most entries each list of the report holds; the counts beside the lists count all.
    std::size_t max_listed = 100;

    // The first problem of the options alone: option_error::bad_rate, window_not_finite,
    // window_reversed, bad_position_tolerance, bad_rotation_tolerance (an angle outside
    // [0, 180]), bad_time_tolerance, bad_offset (not finite); a false code when there is none.
    std::error_code problem() const noexcept;
};

// What a pose's error measures: a distance in metres, or an angle in degrees between rotations
// (sign-agnostic: q and -q are one rotation) or between directions.
enum class error_kind : std::uint8_t { position, rotation, direction };
// "position", "rotation", "direction".
std::string_view error_kind_name(error_kind k) noexcept;

// The error of one pose over the grid: the head's position or rotation, a joint's position or
// rotation, the gaze origin or direction.
struct motion_difference {
    // "camera.position", "hand.left.joint.IndexTip.rotation", "gaze.direction", ...: the paths
    // of its curves without the last component.
    std::string_view name;
    error_kind kind = error_kind::position;
    // Its first curve (x), whose block and hand it shares.
    curve_id first_curve{};
    // The rows compared: every row for the head and gaze, the rows where both sides track the
    // hand for a joint.
    std::uint64_t samples = 0;
    // Metres or degrees; 0 without samples.
    double max = 0.0;
    double rms = 0.0;
    // The time of the (first) largest error.
    float max_time = 0.0f;
    // The first row whose error is past the tolerance, and that error.
    std::optional<float> first_exceeded;
    double first_exceeded_error = 0.0;
    // The rows past the tolerance.
    std::uint64_t exceeded_samples = 0;
};

// An interval of a bool curve (tracked or pinching): [start, end), end the time of the first row
// after it (or one grid step past the last row).
struct interval {
    float start = 0.0f;
    float end = 0.0f;
    friend bool operator==(const interval&, const interval&) = default;
};

// How the true intervals of a bool curve differ where they overlap in time: `lost` (only A has
// them), `gained` (only B), `moved` (one on each side, a start or end further apart than the time
// tolerance), `split` (several on a side: one interval became several, or several one).
enum class interval_change : std::uint8_t { lost, gained, moved, split };
// "lost", "gained", "moved", "split".
std::string_view interval_change_name(interval_change c) noexcept;

// A group of overlapping intervals of one curve that differs. `a` spans A's intervals of the
// group (from the first start to the last end; none for `gained`), `b` B's.
struct state_difference {
    curve_id curve{};
    interval_change change = interval_change::moved;
    std::optional<interval> a;
    std::optional<interval> b;
    std::uint32_t a_intervals = 0;
    std::uint32_t b_intervals = 0;
};

// renamed: same time within the tolerance, another name; moved: same name, another time; removed:
// only in A; added: only in B.
enum class marker_change : std::uint8_t { moved, renamed, removed, added };
// "moved", "renamed", "removed", "added".
std::string_view marker_change_name(marker_change c) noexcept;

struct marker_difference {
    marker_change change = marker_change::removed;
    std::optional<marker> a;
    std::optional<marker> b;
};

// A curve whose key counts differ (structure), or (compare_options::keys) the first field of a
// curve that differs bit for bit.
struct key_difference {
    curve_id curve{};
    // "count", "pre_wrap", "post_wrap", or a key's "time", "value", "in_tangent", "out_tangent",
    // "in_weight", "out_weight", "weighted_mode".
    std::string_view field;
    // The key whose field differs; none for the count and the wrap modes.
    std::optional<std::uint64_t> key;
    // The two values (key counts, wrap modes, a field's value; a weighted mode as its Int32).
    double a = 0.0;
    double b = 0.0;
};

// How much later B's motion happens than A's, as estimate_offset finds it (docs/DIFF.md,
// "Alignment").
struct time_alignment {
    // Seconds: B's time of a moment minus A's, a whole number of grid steps from the difference
    // of the two takes' first grid times.
    double offset = 0.0;
    // The correlation of the two heads' motion at that offset, in [-1, 1]: 1 is the same motion.
    double confidence = 0.0;
    // Seconds of motion the two takes share at that offset (grid steps / rate).
    double overlap = 0.0;
};

// Why estimate_offset() found no offset.
enum class align_error : std::uint8_t {
    none,
    // A side has no camera block.
    no_head,
    // A side's head has fewer than 3 grid rows, or its motion is too flat to time: neither its
    // speed nor its turning speed varies by more than align_flat_speed / align_flat_turn (a
    // standard deviation) on both sides.
    too_flat,
    // The two takes' grids hold more than max_align_steps rows together.
    too_long,
    // No offset makes the motions alike: the best correlation is below min_align_confidence.
    no_match,
};
std::string_view align_error_name(align_error e) noexcept;
// align_error as a std::error_code (category "inputanim.align").
const std::error_category& align_error_category() noexcept;
std::error_code make_error_code(align_error e) noexcept;

// The alignment's ceiling on both takes' grid rows together: its transform holds about 24 bytes
// per point of the next power of two above them, 48 MiB at most (2^21 rows is 4.8 hours a side at
// 60 Hz).
inline constexpr std::uint64_t max_align_steps = std::uint64_t{1} << 21;
// Below this standard deviation of the head's speed (m/s) and of its turning speed (degrees/s)
// a take's head is still: tracking jitter, nothing to time.
inline constexpr double align_flat_speed = 0.005;
inline constexpr double align_flat_turn = 0.5;
// The least correlation an estimate is taken at.
inline constexpr double min_align_confidence = 0.5;

// Estimates the offset between two takes of one motion from their heads (docs/DIFF.md,
// "Alignment"): each take's head speed and turning speed on its own grid at options.rate over
// its whole length, each standardised and summed, then the correlation of the two series at
// every lag where they share at least half of the shorter, by FFT; the lag with the largest
// correlation, to the nearest grid step. Errors: align_error; grid_error::bad_rate,
// bad_time, too_many_rows (a side past options.max_rows); std::errc::not_enough_memory. On
// error `out` is left as it was.
std::error_code estimate_offset(const recording& a, const recording& b,
                                const compare_options& options, time_alignment& out) noexcept;

struct comparison {
    summary a;
    summary b;
    // The offset B was compared at (compare_options::offset, or the alignment's), and the
    // alignment when compare_options::align asked for one.
    double offset = 0.0;
    std::optional<time_alignment> alignment;
    // The files hold other blocks: the curves of a block only one holds are not compared.
    bool blocks_differ = false;
    // Curves both hold whose key counts differ (information: thinning and conversion change
    // them; only `keys` makes them a difference).
    std::uint64_t key_count_curves = 0;
    std::vector<key_difference> key_counts;

    // The grid: its rate, first and last row times and rows (none without rows: neither file
    // has keys, or the window holds no grid point).
    double rate = 0.0;
    std::optional<float> from;
    std::optional<float> to;
    std::uint64_t rows = 0;
    compare_tolerances tolerance;

    // Every pose the two files both hold, in curve order: head, hands (left joints then right,
    // position before rotation), gaze.
    std::vector<motion_difference> motion;
    // Rows where a hand's tracked state differs, per side (left 0): the joints are not compared
    // on them.
    std::uint64_t tracking_mismatch_rows[2] = {0, 0};
    std::uint64_t state_count = 0;
    std::vector<state_difference> state;
    std::uint64_t marker_count = 0;
    std::vector<marker_difference> markers;
    // compare_options::keys: the curves that differ bit for bit (one entry each), else none.
    std::optional<std::uint64_t> key_curves;
    std::vector<key_difference> keys;

    // Whether a motion's error passed its tolerance.
    static bool exceeded(const motion_difference& m) noexcept {
        return m.first_exceeded.has_value();
    }
    // Same within the tolerances: the same blocks, no motion past its tolerance, no state or
    // marker difference, and (keys) no key difference.
    bool same() const noexcept;
};

// The largest errors of one grid row over the poses compared on it, for a plot of the error over
// time (the viewer's comparison): NaN where no pose of the kind was compared on the row (a hand's
// joints only where both sides track it).
struct row_errors {
    float time = 0.0f;
    // Metres: the head, the joints, the gaze origin.
    double position = 0.0;
    // Degrees: rotations and the gaze direction.
    double angle = 0.0;
};

// Compares `a` and `b` (opened without a structural error; their bytes readable) under
// `options` into `out`. Errors: options.problem(); grid_error::bad_rate, bad_time (a key time
// that is not finite), too_many_rows; with `align`, estimate_offset's; std::errc::
// not_enough_memory. On error `out` is left as it was. Evaluation reads the bytes of both
// recordings (run it under guarded_each for mappings).
std::error_code compare(const recording& a, const recording& b, const compare_options& options,
                        comparison& out) noexcept;
// The same, handing `each_row` the row's largest errors as each row is compared. `each_row` may
// throw std::bad_alloc (compare() then returns not_enough_memory) and nothing else.
std::error_code compare(const recording& a, const recording& b, const compare_options& options,
                        comparison& out,
                        const std::function<void(const row_errors&)>& each_row) noexcept;

}  // namespace inputanim

template <>
struct std::is_error_code_enum<inputanim::align_error> : std::true_type {};
