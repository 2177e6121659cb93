#include "inputanim/metrics.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <numbers>
#include <string>

#include "inputanim/detail/codes.hpp"
#include "inputanim/detail/names.hpp"

namespace inputanim {

namespace {

constexpr detail::code_row<metrics_error> metrics_rows[] = {
    {metrics_error::none, "none", "no error"},
    {metrics_error::bad_joint, "bad_joint", "the joint is not one of MRTK's joints"},
    {metrics_error::bad_fixation_velocity, "bad_fixation_velocity",
     "the fixation velocity is negative or not finite"},
    {metrics_error::bad_merge_gap, "bad_merge_gap", "the merge gap is negative or not finite"},
    {metrics_error::bad_merge_angle, "bad_merge_angle",
     "the merge angle is negative or not finite"},
    {metrics_error::bad_min_fixation, "bad_min_fixation",
     "the minimum fixation duration is negative or not finite"},
    {metrics_error::shared_times, "shared_times",
     "consecutive grid points share a float32 time (the recording's times are too far from 0 for "
     "this rate)"},
};
constexpr detail::code_table<metrics_error> metrics_codes{metrics_rows, "unknown error"};

}  // namespace

std::string_view metrics_error_name(metrics_error e) noexcept {
    return metrics_codes.name(e);
}

std::string_view event_kind_name(event_kind kind) noexcept {
    switch (kind) {
        case event_kind::tracking:
            return "tracking";
        case event_kind::pinch:
            return "pinch";
        case event_kind::fixations:
            return "fixations";
        case event_kind::saccades:
            return "saccades";
    }
    return detail::unknown_name;
}

std::optional<event_kind> parse_event_kind_name(std::string_view name) noexcept {
    return detail::parse_name<event_kind>(name, event_kind_name);
}

const std::error_category& metrics_error_category() noexcept {
    static const detail::code_category<metrics_error> category("inputanim.metrics", metrics_codes);
    return category;
}

std::error_code make_error_code(metrics_error e) noexcept {
    return {static_cast<int>(e), metrics_error_category()};
}

std::error_code metrics_options::problem() const noexcept {
    if (!std::isfinite(rate) || !(rate > 0.0) || !std::isfinite(1.0 / rate)) {
        return grid_error::bad_rate;
    }
    if (static_cast<std::size_t>(joint) >= joint_count) return metrics_error::bad_joint;
    const auto bad = [](double v) { return !std::isfinite(v) || v < 0.0; };
    if (bad(fixation_velocity)) return metrics_error::bad_fixation_velocity;
    if (bad(merge_gap)) return metrics_error::bad_merge_gap;
    if (bad(merge_angle)) return metrics_error::bad_merge_angle;
    if (bad(min_fixation)) return metrics_error::bad_min_fixation;
    return {};
}

namespace {

constexpr double degrees_per_radian = 180.0 / std::numbers::pi;

struct dvec {
    double x = 0.0;
    double y = 0.0;
    double z = 0.0;

    dvec& operator+=(const dvec& o) noexcept {
        x += o.x;
        y += o.y;
        z += o.z;
        return *this;
    }
};

dvec operator-(const dvec& a, const dvec& b) noexcept {
    return {a.x - b.x, a.y - b.y, a.z - b.z};
}
double dot(const dvec& a, const dvec& b) noexcept {
    return a.x * b.x + a.y * b.y + a.z * b.z;
}
dvec cross(const dvec& a, const dvec& b) noexcept {
    return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
double length(const dvec& a) noexcept {
    return std::sqrt(dot(a, a));
}

// The angle between two non-zero vectors in degrees: atan2 keeps small angles accurate, where
// acos of a dot product near 1 loses them.
double angle_degrees(const dvec& a, const dvec& b) noexcept {
    return std::atan2(length(cross(a, b)), dot(a, b)) * degrees_per_radian;
}

vec3 to_float(const dvec& v) noexcept {
    return {static_cast<float>(v.x), static_cast<float>(v.y), static_cast<float>(v.z)};
}

// The columns of a row: what each of the (up to) 23 curves read is, whatever the file's order.
enum slot : std::size_t {
    left_tracked,
    right_tracked,
    left_pinching,
    right_pinching,
    left_joint,  // x, y, z
    right_joint = left_joint + 3,
    camera = right_joint + 3,            // position x, y, z, rotation x, y, z, w
    gaze = camera + pose_channel_count,  // origin x, y, z, direction x, y, z
    slot_count = gaze + ray_channel_count,
};

std::size_t side_index(side s) noexcept {
    return s == side::left ? 0 : 1;
}

// The samples' times and the intervals between them.
struct grid_times {
    const resampler* rs;
    double t0;
    double rate;
    std::uint64_t samples;

    float time(std::uint64_t i) const noexcept {
        return i < samples ? rs->row_time(i)
                           : static_cast<float>(t0 + static_cast<double>(i) / rate);
    }
    grid_interval interval(std::uint64_t from, std::uint64_t to) const noexcept {
        return {from, to, time(from), time(to), static_cast<double>(to - from) / rate};
    }
};

// Steps between consecutive measured positions.
struct motion_sum {
    std::uint64_t pairs = 0;
    double path = 0.0;
    double peak = 0.0;

    void add(double step) noexcept {
        ++pairs;
        path += step;
        peak = std::max(peak, step);
    }
    motion_metrics result(double rate) const noexcept {
        motion_metrics m;
        m.path_length = path;
        m.time = static_cast<double>(pairs) / rate;
        if (pairs > 0) {
            m.mean_speed = path / m.time;
            m.peak_speed = peak * rate;
        }
        return m;
    }
};

// The previous position of a motion, when it was measured.
struct position_track {
    bool valid = false;
    dvec last;

    // Adds the step from the last position when both are measured; `p` is measured when `on`
    // and finite.
    void next(bool on, const dvec& p, motion_sum& sum) noexcept {
        const bool measured = on && std::isfinite(p.x) && std::isfinite(p.y) && std::isfinite(p.z);
        if (measured && valid) sum.add(length(p - last));
        valid = measured;
        last = p;
    }
};

// Maximal runs of samples where a state is on.
struct run {
    bool on = false;
    std::uint64_t start = 0;
};

class hand_sweep {
  public:
    hand_sweep(side s, const grid_times& grid, metrics_sink* events) noexcept
        : side_(s), grid_(grid), events_(events) {}

    void add(std::uint64_t i, bool tracked, bool pinching, const dvec& position) {
        if (tracked) ++tracked_samples_;
        if (tracked && !tracked_.on) {
            tracked_.start = i;
            if (ended_tracked_) {
                const grid_interval g = grid_.interval(last_tracked_end_, i);
                ++gaps_;
                gap_time_ += g.duration;
                longest_gap_ = std::max(longest_gap_, g.duration);
                if (events_) events_->gap(side_, g);
            }
        } else if (!tracked && tracked_.on) {
            end_tracked(i);
        }
        tracked_.on = tracked;
        const bool pinch = tracked && pinching;
        if (pinch && !pinch_.on) {
            pinch_.start = i;
        } else if (!pinch && pinch_.on) {
            end_pinch(i);
        }
        pinch_.on = pinch;
        position_.next(tracked, position, motion_);
    }

    hand_metrics finish(std::uint64_t samples) {
        if (tracked_.on) end_tracked(samples);
        if (pinch_.on) end_pinch(samples);
        hand_metrics m;
        m.tracked_samples = tracked_samples_;
        m.coverage = static_cast<double>(tracked_samples_) / static_cast<double>(samples);
        m.gaps = gaps_;
        m.gap_time = gap_time_;
        if (gaps_ > 0) m.longest_gap = longest_gap_;
        m.pinches = pinches_;
        m.pinch_time = pinch_time_;
        m.motion = motion_.result(grid_.rate);
        return m;
    }

  private:
    void end_tracked(std::uint64_t i) {
        if (events_) events_->tracked(side_, grid_.interval(tracked_.start, i));
        ended_tracked_ = true;
        last_tracked_end_ = i;
    }
    void end_pinch(std::uint64_t i) {
        const grid_interval g = grid_.interval(pinch_.start, i);
        ++pinches_;
        pinch_time_ += g.duration;
        if (events_) events_->pinch(side_, g);
    }

    side side_;
    const grid_times& grid_;
    metrics_sink* events_;
    run tracked_;
    run pinch_;
    std::uint64_t tracked_samples_ = 0;
    bool ended_tracked_ = false;
    std::uint64_t last_tracked_end_ = 0;
    std::uint64_t gaps_ = 0;
    double gap_time_ = 0.0;
    double longest_gap_ = 0.0;
    std::uint64_t pinches_ = 0;
    double pinch_time_ = 0.0;
    position_track position_;
    motion_sum motion_;
};

class head_sweep {
  public:
    explicit head_sweep(double rate) noexcept : rate_(rate) {}

    void add(const float* v) noexcept {
        position_.next(true, {v[0], v[1], v[2]}, motion_);
        const double x = v[3];
        const double y = v[4];
        const double z = v[5];
        const double w = v[6];
        const bool finite =
            std::isfinite(x) && std::isfinite(y) && std::isfinite(z) && std::isfinite(w);
        if (!finite) {
            has_rotation_ = false;
            return;
        }
        // As normalized(): a zero quaternion (no rotation keys) is the identity.
        const double n = std::sqrt(x * x + y * y + z * z + w * w);
        const std::array<double, 4> q = n > 0.0 && std::isfinite(n)
                                            ? std::array{x / n, y / n, z / n, w / n}
                                            : std::array{0.0, 0.0, 0.0, 1.0};
        if (has_rotation_) {
            // The rotation from the last to this one, conj(last) * q: its angle is
            // 2 atan2(|vector part|, |scalar part|), the shorter way round.
            const dvec a{last_[0], last_[1], last_[2]};
            const dvec b{q[0], q[1], q[2]};
            const dvec c = cross(a, b);
            const dvec vec{last_[3] * b.x - q[3] * a.x - c.x, last_[3] * b.y - q[3] * a.y - c.y,
                           last_[3] * b.z - q[3] * a.z - c.z};
            const double scalar = last_[3] * q[3] + dot(a, b);
            const double angle =
                2.0 * std::atan2(length(vec), std::abs(scalar)) * degrees_per_radian;
            rotation_ += angle;
            peak_angle_ = std::max(peak_angle_, angle);
            ++rotation_pairs_;
        }
        has_rotation_ = true;
        last_ = q;
    }

    head_metrics finish() const noexcept {
        head_metrics m;
        m.motion = motion_.result(rate_);
        m.rotation = rotation_;
        if (rotation_pairs_ > 0) m.peak_angular_speed = peak_angle_ * rate_;
        return m;
    }

  private:
    double rate_;
    position_track position_;
    motion_sum motion_;
    bool has_rotation_ = false;
    std::array<double, 4> last_{};
    double rotation_ = 0.0;
    double peak_angle_ = 0.0;
    std::uint64_t rotation_pairs_ = 0;
};

// I-VT over the gaze directions, one sample at a time.
class fixation_sweep {
  public:
    fixation_sweep(const metrics_options& o, const grid_times& grid, metrics_sink* events) noexcept
        : options_(o), grid_(grid), events_(events) {}

    // Sample i, with its normalised direction and origin when `has` (a gaze direction exists).
    void add(std::uint64_t i, bool has, const dvec& d, const dvec& origin) {
        if (!has) {
            if (waiting_) classify(waiting_index_, false, {}, {});
            waiting_ = false;
            classify(i, false, {}, {});
            previous_ = false;
            return;
        }
        ++samples_;
        if (!previous_) {
            // The first sample of a run of directions has the velocity of the second (v_0 = v_1).
            waiting_ = true;
            waiting_index_ = i;
            waiting_direction_ = d;
            waiting_origin_ = origin;
        } else {
            const double velocity = angle_degrees(last_direction_, d) * grid_.rate;
            const bool fixating = velocity < options_.fixation_velocity;
            if (waiting_) classify(waiting_index_, fixating, waiting_direction_, waiting_origin_);
            waiting_ = false;
            classify(i, fixating, d, origin);
        }
        previous_ = true;
        last_direction_ = d;
    }

    gaze_metrics finish() {
        // A run of one direction has no velocity: not a fixation sample.
        if (waiting_) classify(waiting_index_, false, {}, {});
        waiting_ = false;
        if (run_open_) close_run();
        finalize_pending();
        gaze_metrics m;
        m.samples = samples_;
        m.fixations = fixations_;
        m.fixation_time = fixation_time_;
        if (fixations_ > 0) {
            m.mean_fixation_duration = fixation_time_ / static_cast<double>(fixations_);
            m.longest_fixation = longest_fixation_;
        }
        m.saccades = saccades_;
        if (saccades_ > 0) m.mean_saccade_amplitude = amplitudes_ / static_cast<double>(saccades_);
        return m;
    }

  private:
    struct candidate {
        std::uint64_t first = 0;
        std::uint64_t last = 0;
        std::uint64_t count = 0;
        dvec directions;
        dvec origins;
    };

    void classify(std::uint64_t i, bool fixating, const dvec& d, const dvec& origin) {
        if (!fixating) {
            if (run_open_) close_run();
            return;
        }
        if (!run_open_) {
            run_ = candidate{i, i, 0, {}, {}};
            run_open_ = true;
        }
        run_.last = i;
        ++run_.count;
        run_.directions += d;
        run_.origins += origin;
    }

    void close_run() {
        run_open_ = false;
        if (has_pending_ &&
            static_cast<double>(run_.first - pending_.last) / grid_.rate < options_.merge_gap &&
            angle_degrees(pending_.directions, run_.directions) < options_.merge_angle) {
            pending_.last = run_.last;
            pending_.count += run_.count;
            pending_.directions += run_.directions;
            pending_.origins += run_.origins;
            return;
        }
        finalize_pending();
        pending_ = run_;
        has_pending_ = true;
    }

    void finalize_pending() {
        if (!has_pending_) return;
        has_pending_ = false;
        const grid_interval when = grid_.interval(pending_.first, pending_.last);
        if (when.duration < options_.min_fixation) return;
        const double norm = length(pending_.directions);
        const dvec direction{pending_.directions.x / norm, pending_.directions.y / norm,
                             pending_.directions.z / norm};
        const auto n = static_cast<double>(pending_.count);
        const dvec origin{pending_.origins.x / n, pending_.origins.y / n, pending_.origins.z / n};
        if (has_fixation_) {
            const saccade s{grid_.interval(last_fixation_end_, pending_.first),
                            angle_degrees(last_fixation_direction_, direction)};
            ++saccades_;
            amplitudes_ += s.amplitude;
            if (events_) events_->saccade(s);
        }
        ++fixations_;
        fixation_time_ += when.duration;
        longest_fixation_ = std::max(longest_fixation_, when.duration);
        if (events_) events_->fixation({when, to_float(direction), to_float(origin)});
        has_fixation_ = true;
        last_fixation_end_ = pending_.last;
        last_fixation_direction_ = direction;
    }

    const metrics_options& options_;
    const grid_times& grid_;
    metrics_sink* events_;
    std::uint64_t samples_ = 0;
    // The previous sample had a direction, last_direction_.
    bool previous_ = false;
    dvec last_direction_;
    // The first sample of a run of directions, until the second gives it a velocity.
    bool waiting_ = false;
    std::uint64_t waiting_index_ = 0;
    dvec waiting_direction_;
    dvec waiting_origin_;
    // The run of fixation samples being read.
    bool run_open_ = false;
    candidate run_;
    // The last candidate, merged with those after it until one is too far or too different.
    bool has_pending_ = false;
    candidate pending_;
    bool has_fixation_ = false;
    std::uint64_t last_fixation_end_ = 0;
    dvec last_fixation_direction_;
    std::uint64_t fixations_ = 0;
    double fixation_time_ = 0.0;
    double longest_fixation_ = 0.0;
    std::uint64_t saccades_ = 0;
    double amplitudes_ = 0.0;
};

// Whether the file holds curves first .. first + n - 1 and one of them has a key: the rule of
// camera_pose, gaze_ray and hand_tracked.
bool keyed_group(const recording& rec, curve_id first, std::size_t n) noexcept {
    bool keyed = false;
    for (std::size_t i = 0; i < n; ++i) {
        const curve_view* c = rec.find(curve_id(to_index(first) + i));
        if (c == nullptr) return false;
        keyed = keyed || !c->keys.empty();
    }
    return keyed;
}

// The slot of a curve the metrics read.
std::size_t slot_of(curve_id id, joint j) noexcept {
    const std::size_t i = to_index(id);
    if (i < hand_state_first) return camera + i;
    if (i < left_joint_first) return left_tracked + (i - hand_state_first);
    if (i >= gaze_first) return gaze + (i - gaze_first);
    const bool left = i < right_joint_first;
    const std::size_t joint_first =
        to_index(joint_curve(left ? side::left : side::right, j, pose_channel::position_x));
    return (left ? left_joint : right_joint) + (i - joint_first);
}

bool is_finite(const float* v, std::size_t n) noexcept {
    for (std::size_t i = 0; i < n; ++i) {
        if (!std::isfinite(v[i])) return false;
    }
    return true;
}

}  // namespace

std::error_code measure(const recording& rec, const metrics_options& options,
                        recording_metrics& out, metrics_sink* events) {
    if (const std::error_code ec = options.problem()) return ec;
    std::array<bool, 2> hand_exists{};
    for (const side s : {side::left, side::right}) {
        const curve_id tracked = hand_state_curve(s == side::left ? hand_state::left_tracked
                                                                  : hand_state::right_tracked);
        hand_exists[side_index(s)] = keyed_group(rec, tracked, 1);
    }
    const bool head_exists =
        keyed_group(rec, camera_curve(pose_channel::position_x), pose_channel_count);
    const bool gaze_exists = keyed_group(rec, gaze_curve(ray_channel::origin_x), ray_channel_count);

    resampler rs(rec);
    const grid_error g = rs.set_grid(options.rate, std::nullopt, std::nullopt, options.max_samples);
    if (g != grid_error::none && g != grid_error::no_keys) return g;
    // No keys, or (keys out of order) a last key time before the first: no samples.
    if (g == grid_error::no_keys || rs.row_count() == 0) {
        out = recording_metrics{};
        return {};
    }
    if (rs.row_count() != rs.point_count()) return metrics_error::shared_times;

    // The curves measured, by id (the resampler keeps them in id order whatever the order they
    // are selected in): the head's pose, the gaze ray, and each hand's tracked and pinching states
    // and the joint's position. Selected by path globs, matching them took two thirds of the
    // instructions of `index --metrics` over 15 s recordings.
    std::array<curve_id, pose_channel_count + ray_channel_count + 2 * (2 + 3)> ids{};
    std::size_t n = 0;
    if (head_exists) {
        for (std::size_t c = 0; c < pose_channel_count; ++c)
            ids[n++] = camera_curve(pose_channel(c));
    }
    if (gaze_exists) {
        for (std::size_t c = 0; c < ray_channel_count; ++c) ids[n++] = gaze_curve(ray_channel(c));
    }
    for (const side s : {side::left, side::right}) {
        if (!hand_exists[side_index(s)]) continue;
        const bool left = s == side::left;
        ids[n++] = hand_state_curve(left ? hand_state::left_tracked : hand_state::right_tracked);
        ids[n++] = hand_state_curve(left ? hand_state::left_pinching : hand_state::right_pinching);
        for (const pose_channel c :
             {pose_channel::position_x, pose_channel::position_y, pose_channel::position_z})
            ids[n++] = joint_curve(s, options.joint, c);
    }
    rs.select(std::span<const curve_id>(ids.data(), n));
    std::array<std::size_t, slot_count> column{};
    std::array<bool, slot_count> used{};
    for (std::size_t c = 0; c < rs.curves().size(); ++c) {
        const std::size_t s = slot_of(rs.curves()[c], options.joint);
        column[s] = c;
        used[s] = true;
    }

    const summary& sum = rec.summary();
    const grid_times grid{&rs, static_cast<double>(*sum.start), options.rate, rs.row_count()};
    recording_metrics m;
    m.samples = grid.samples;
    m.start = grid.time(0);
    m.end = grid.time(grid.samples - 1);
    std::array<hand_sweep, 2> hands = {hand_sweep(side::left, grid, events),
                                       hand_sweep(side::right, grid, events)};
    head_sweep head(options.rate);
    fixation_sweep fixations(options, grid, events);

    std::array<float, slot_count> row{};
    std::array<float, slot_count> v{};
    const std::size_t selected = rs.curves().size();
    for (std::uint64_t i = 0; i < grid.samples; ++i) {
        rs.next(row);
        if (!is_finite(row.data(), selected)) ++m.nonfinite_samples;
        for (std::size_t s = 0; s < slot_count; ++s) v[s] = used[s] ? row[column[s]] : 0.0f;
        for (const side s : {side::left, side::right}) {
            const std::size_t h = side_index(s);
            if (!hand_exists[h]) continue;
            const float* p = &v[h == 0 ? left_joint : right_joint];
            hands[h].add(i, v[left_tracked + h] > 0.5f, v[left_pinching + h] > 0.5f,
                         {p[0], p[1], p[2]});
        }
        if (head_exists) head.add(&v[camera]);
        if (gaze_exists) {
            const float* r = &v[gaze];
            const dvec origin{r[0], r[1], r[2]};
            const dvec d{r[3], r[4], r[5]};
            const double n = length(d);
            const bool has = is_finite(r, ray_channel_count) && n > 0.0;
            fixations.add(i, has, has ? dvec{d.x / n, d.y / n, d.z / n} : dvec{}, origin);
        }
    }
    for (std::size_t h = 0; h < 2; ++h) {
        if (hand_exists[h]) m.hands[h] = hands[h].finish(grid.samples);
    }
    if (head_exists) m.head = head.finish();
    if (gaze_exists) m.gaze = fixations.finish();
    out = m;
    return {};
}

}  // namespace inputanim
