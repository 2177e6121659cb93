#include "inputanim/evaluate.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <utility>

#include "detail/load.hpp"

namespace inputanim {

namespace {

constexpr std::int32_t wrap_loop = 2;
constexpr std::int32_t wrap_ping_pong = 4;

// The keyframe bytes of one curve, read directly: the views' getters are out-of-line calls,
// and the binary search below is the hot path of every evaluation.
struct keys_ref {
    const std::byte* p;
    std::size_t n;
    std::size_t stride;
    bool full;
    bool steps;

    explicit keys_ref(const curve_view& c) noexcept
        : p(c.keys.data()),
          n(c.keys.size()),
          stride(c.keys.stride()),
          full(c.keys.stride() == full_keyframe_size),
          steps(c.kind == curve_kind::bool_curve) {}

    const std::byte* key(std::size_t i) const noexcept { return p + i * stride; }
    double time(std::size_t i) const noexcept { return detail::load_f32_le(key(i)); }
    float value(std::size_t i) const noexcept { return detail::load_f32_le(key(i) + 4); }
    double in_tangent(std::size_t i) const noexcept { return detail::load_f32_le(key(i) + 8); }
    double out_tangent(std::size_t i) const noexcept { return detail::load_f32_le(key(i) + 12); }
    double in_weight(std::size_t i) const noexcept { return detail::load_f32_le(key(i) + 16); }
    double out_weight(std::size_t i) const noexcept { return detail::load_f32_le(key(i) + 20); }
    std::int32_t mode(std::size_t i) const noexcept { return detail::load_i32_le(key(i) + 24); }

    // The last key in [lo, hi) with time <= t, given that key lo qualifies. Both halves shrink
    // the range by the same amount, so the choice compiles to a conditional move instead of a
    // branch that random times mispredict half of the time. Without the branch nothing loads
    // the next probe early, so both candidates are prefetched: on a curve larger than the cache
    // each level then waits for memory once, overlapped with the compare.
    std::size_t last_at_or_before(double t, std::size_t lo, std::size_t hi) const noexcept {
        std::size_t count = hi - lo;
        while (count > 1) {
            const std::size_t half = count / 2;
            const std::size_t next_half = (count - half) / 2;
            __builtin_prefetch(key(lo + next_half));
            __builtin_prefetch(key(lo + half + next_half));
            lo = time(lo + half) <= t ? lo + half : lo;
            count -= half;
        }
        return lo;
    }
};

float saturate(double v) noexcept {
    constexpr double max = std::numeric_limits<float>::max();
    if (v > max) return std::numeric_limits<float>::max();
    if (v < -max) return -std::numeric_limits<float>::max();
    return static_cast<float>(v);
}

// x(u) of the weighted Bezier in Bernstein form, which stays accurate for large weights where
// the power form would cancel.
double bezier_x(double u, double w1, double w2) noexcept {
    const double v = 1.0 - u;
    return 3.0 * w1 * u * v * v + 3.0 * (1.0 - w2) * u * u * v + u * u * u;
}

double bezier_dx(double u, double w1, double w2) noexcept {
    const double v = 1.0 - u;
    return 3.0 * (w1 * v * v + 2.0 * (1.0 - w1 - w2) * u * v + w2 * u * u);
}

// The root of x(u) = s in [lo, hi], where x is monotone and x - s goes from negative to
// positive: Newton steps, replaced by bisection whenever one leaves the shrinking bracket (a flat
// spot, a zero derivative or a NaN), so it converges for every finite weight.
double refine_root(double s, double w1, double w2, double lo, double hi, double f_lo,
                   double f_hi) noexcept {
    double u = lo + (hi - lo) * (f_lo / (f_lo - f_hi));
    if (!(u > lo && u < hi)) u = lo + 0.5 * (hi - lo);
    for (int i = 0; i < 100; ++i) {
        const double f = bezier_x(u, w1, w2) - s;
        if (f == 0.0) return u;
        if (f < 0.0) {
            lo = u;
        } else {
            hi = u;
        }
        double next = u - f / bezier_dx(u, w1, w2);
        if (!(next > lo && next < hi)) next = lo + 0.5 * (hi - lo);
        // Newton converges quadratically: a step this small leaves an error far below it.
        if (std::abs(next - u) <= 1e-15) return next;
        u = next;
    }
    return u;
}

// The smallest u in [0, 1] with x(u) = s, for s in (0, 1]. x(0) = 0 and x(1) = 1, so a root
// exists; weights above 1 or below 0 make x non-monotone, so [0, 1] is split at the critical
// points of x and the first piece over which x - s changes sign holds the smallest root.
double solve_bezier(double s, double w1, double w2) noexcept {
    // x'(u) / 3 = w1 (1-u)^2 + 2 b u (1-u) + w2 u^2 = qa u^2 + qb u + qc.
    const double a = w1;
    const double b = 1.0 - w1 - w2;
    const double c = w2;
    const double qa = a - 2.0 * b + c;
    const double qb = 2.0 * (b - a);
    const double qc = a;
    // The critical points inside (0, 1), in increasing order.
    std::array<double, 2> cuts{};
    std::size_t n = 0;
    auto add_cut = [&](double r) {
        if (r > 0.0 && r < 1.0) cuts[n++] = r;
    };
    if (qa == 0.0) {
        if (qb != 0.0) add_cut(-qc / qb);
    } else {
        const double disc = qb * qb - 4.0 * qa * qc;
        if (disc > 0.0) {
            // The numerically stable pair of quadratic roots.
            const double q = -0.5 * (qb + std::copysign(std::sqrt(disc), qb));
            add_cut(q / qa);
            add_cut(qc / q);
        }
    }
    if (n == 2 && cuts[1] < cuts[0]) std::swap(cuts[0], cuts[1]);

    // x - s is negative at 0 (s > 0) and not negative at 1 (s <= 1): the first piece that ends
    // at or above zero holds the smallest root.
    double lo = 0.0;
    double f_lo = -s;
    for (std::size_t i = 0; i < n; ++i) {
        const double f_cut = bezier_x(cuts[i], w1, w2) - s;
        if (f_cut == 0.0) return cuts[i];
        if (f_cut > 0.0) return refine_root(s, w1, w2, lo, cuts[i], f_lo, f_cut);
        lo = cuts[i];
        f_lo = f_cut;
    }
    const double f_end = 1.0 - s;
    return f_end == 0.0 ? 1.0 : refine_root(s, w1, w2, lo, 1.0, f_lo, f_end);
}

// The value inside the segment that starts at key `left`, at time t >= time(left).
float segment_value(const keys_ref& k, std::size_t left, double t) noexcept {
    const float p0f = k.value(left);
    if (k.steps || left + 1 >= k.n) return p0f;
    const double t0 = k.time(left);
    const double dt = k.time(left + 1) - t0;
    // t == t0 is the key's own value; dt <= 0 only happens with keys out of order.
    if (!(t > t0) || !(dt > 0.0)) return p0f;
    const double s = std::min((t - t0) / dt, 1.0);
    const double p0 = p0f;
    const double p1 = k.value(left + 1);
    if (!k.full) return saturate(p0 + (p1 - p0) * s);

    const double out0 = k.out_tangent(left);
    const double in1 = k.in_tangent(left + 1);
    if (std::isinf(out0) || std::isinf(in1)) return p0f;
    const double m0 = out0 * dt;
    const double m1 = in1 * dt;
    const bool weighted_out = (k.mode(left) & 2) != 0;
    const bool weighted_in = (k.mode(left + 1) & 1) != 0;
    if (weighted_out || weighted_in) {
        const double w1 = weighted_out ? k.out_weight(left) : 1.0 / 3.0;
        const double w2 = weighted_in ? k.in_weight(left + 1) : 1.0 / 3.0;
        // With both weights 0 the inner control points sit on the end points: the curve is the
        // straight line from (0, p0) to (1, p1) whatever the tangents, traversed at a speed the
        // value does not depend on. This is MRTK's own key (0, 0, 0, 0, Both): exactly linear,
        // and the cubic's flat ends would only cost accuracy.
        if (w1 == 0.0 && w2 == 0.0) return saturate(p0 + (p1 - p0) * s);
        const double u = solve_bezier(s, w1, w2);
        const double v = 1.0 - u;
        return saturate(v * v * v * p0 + 3.0 * u * v * v * (p0 + w1 * m0) +
                        3.0 * u * u * v * (p1 - w2 * m1) + u * u * u * p1);
    }
    const double s2 = s * s;
    const double s3 = s2 * s;
    return saturate((2.0 * s3 - 3.0 * s2 + 1.0) * p0 + (s3 - 2.0 * s2 + s) * m0 + (s3 - s2) * m1 +
                    (-2.0 * s3 + 3.0 * s2) * p1);
}

// Maps t outside [first, last] into it for a repeating mode, clamped so that rounding cannot
// leave the range.
double wrap(std::int32_t mode, double t, double first, double last) noexcept {
    const double length = last - first;
    double r;
    if (mode == wrap_loop) {
        r = t - std::floor((t - first) / length) * length;
    } else {
        const double period = 2.0 * length;
        const double x = (t - first) - std::floor((t - first) / period) * period;
        r = first + length - std::abs(x - length);
    }
    return std::clamp(r, first, last);
}

// Evaluation with the segment search as a parameter, so that evaluate and the sampler share
// every step that computes a value. `find` is called with time(0) <= tw <= time(n - 1).
template <class Find>
float evaluate_with(const curve_view& c, float t, Find&& find) noexcept {
    const keys_ref k(c);
    if (k.n == 0) return 0.0f;
    if (k.n == 1) return k.value(0);
    if (std::isnan(t)) return t;
    const double first = k.time(0);
    const double last = k.time(k.n - 1);
    double tw = t;
    if (tw < first || tw > last) {
        const bool before = tw < first;
        const std::int32_t mode = before ? c.pre_wrap : c.post_wrap;
        const bool repeats = mode == wrap_loop || mode == wrap_ping_pong;
        if (!repeats || !(last > first)) return before ? k.value(0) : k.value(k.n - 1);
        if (std::isinf(tw)) return std::numeric_limits<float>::quiet_NaN();
        tw = wrap(mode, tw, first, last);
    }
    return segment_value(k, find(k, tw), tw);
}

}  // namespace

float evaluate(const curve_view& c, float t) noexcept {
    return evaluate_with(
        c, t, [](const keys_ref& k, double tw) { return k.last_at_or_before(tw, 0, k.n); });
}

bool evaluate_bool(const curve_view& c, float t) noexcept {
    return evaluate(c, t) > 0.5f;
}

float curve_sampler::operator()(float t) noexcept {
    return evaluate_with(curve_, t, [this](const keys_ref& k, double tw) {
        std::size_t at = cursor_ < k.n ? cursor_ : 0;
        if (!(k.time(at) <= tw)) {
            at = k.last_at_or_before(tw, 0, at);
        } else {
            // Gallop forward: a dense grid moves one key at a time, a jump costs log(gap).
            std::size_t step = 1;
            std::size_t hi = at + 1;
            while (hi < k.n && k.time(hi) <= tw) {
                at = hi;
                step *= 2;
                hi = step < k.n - at ? at + step : k.n;
            }
            at = k.last_at_or_before(tw, at, hi);
        }
        cursor_ = at;
        return at;
    });
}

quat normalized(const quat& q) noexcept {
    const double x = q.x;
    const double y = q.y;
    const double z = q.z;
    const double w = q.w;
    const double length = std::sqrt(x * x + y * y + z * z + w * w);
    if (!(length > 0.0) || std::isinf(length)) return {};
    return {static_cast<float>(x / length), static_cast<float>(y / length),
            static_cast<float>(z / length), static_cast<float>(w / length)};
}

namespace {

// The curves of a group, or false when the file lacks one or none has a key.
template <std::size_t N>
bool gather(const recording& rec, curve_id first, std::array<const curve_view*, N>& out) noexcept {
    bool any_keys = false;
    for (std::size_t i = 0; i < N; ++i) {
        out[i] = rec.find(curve_id(to_index(first) + i));
        if (out[i] == nullptr) return false;
        any_keys = any_keys || !out[i]->keys.empty();
    }
    return any_keys;
}

std::optional<pose> pose_at(const recording& rec, curve_id first, float t, rotation r) noexcept {
    std::array<const curve_view*, pose_channel_count> c{};
    if (!gather(rec, first, c)) return std::nullopt;
    pose p;
    p.position = {evaluate(*c[0], t), evaluate(*c[1], t), evaluate(*c[2], t)};
    p.rotation = {evaluate(*c[3], t), evaluate(*c[4], t), evaluate(*c[5], t), evaluate(*c[6], t)};
    if (r == rotation::normalized) p.rotation = normalized(p.rotation);
    return p;
}

std::optional<bool> state_at(const recording& rec, hand_state s, float t) noexcept {
    std::array<const curve_view*, 1> c{};
    if (!gather(rec, hand_state_curve(s), c)) return std::nullopt;
    return evaluate_bool(*c[0], t);
}

}  // namespace

std::optional<pose> camera_pose(const recording& rec, float t, rotation r) noexcept {
    return pose_at(rec, camera_curve(pose_channel::position_x), t, r);
}

std::optional<pose> joint_pose(const recording& rec, side s, joint j, float t,
                               rotation r) noexcept {
    return pose_at(rec, joint_curve(s, j, pose_channel::position_x), t, r);
}

std::optional<ray> gaze_ray(const recording& rec, float t) noexcept {
    std::array<const curve_view*, ray_channel_count> c{};
    if (!gather(rec, gaze_curve(ray_channel::origin_x), c)) return std::nullopt;
    return ray{{evaluate(*c[0], t), evaluate(*c[1], t), evaluate(*c[2], t)},
               {evaluate(*c[3], t), evaluate(*c[4], t), evaluate(*c[5], t)}};
}

std::optional<bool> hand_tracked(const recording& rec, side s, float t) noexcept {
    return state_at(rec, s == side::left ? hand_state::left_tracked : hand_state::right_tracked, t);
}

std::optional<bool> hand_pinching(const recording& rec, side s, float t) noexcept {
    return state_at(rec, s == side::left ? hand_state::left_pinching : hand_state::right_pinching,
                    t);
}

std::string_view grid_error_name(grid_error e) noexcept {
    switch (e) {
        case grid_error::none:
            return "none";
        case grid_error::bad_rate:
            return "bad_rate";
        case grid_error::bad_time:
            return "bad_time";
        case grid_error::no_keys:
            return "no_keys";
        case grid_error::too_many_rows:
            return "too_many_rows";
    }
    return "unknown";
}

void resampler::select_all() noexcept {
    for (const curve_view& c : rec_->curves()) selected_[to_index(c.id)] = true;
    rebuild();
}

std::size_t resampler::select(std::string_view glob) noexcept {
    std::size_t matched = 0;
    for (const curve_view& c : rec_->curves()) {
        if (path_matches(glob, c.path())) {
            selected_[to_index(c.id)] = true;
            ++matched;
        }
    }
    rebuild();
    return matched;
}

void resampler::rebuild() noexcept {
    count_ = 0;
    for (const curve_view& c : rec_->curves()) {
        if (!selected_[to_index(c.id)]) continue;
        ids_[count_] = c.id;
        samplers_[count_] = curve_sampler(c);
        ++count_;
    }
}

grid_error resampler::set_grid(double rate, std::optional<double> from,
                               std::optional<double> to) noexcept {
    rows_ = 0;
    next_row_ = 0;
    if (!std::isfinite(rate) || !(rate > 0.0)) return grid_error::bad_rate;
    const summary& sum = rec_->summary();
    if ((!from && !sum.start) || (!to && !sum.duration)) return grid_error::no_keys;
    const double lo = from ? *from : *sum.start;
    const double hi = to ? *to : *sum.duration;
    constexpr double float_max = std::numeric_limits<float>::max();
    for (double v : {lo, hi}) {
        if (!std::isfinite(v) || std::abs(v) > float_max) return grid_error::bad_time;
    }
    if (hi < lo) return grid_error::none;
    const double span = (hi - lo) * rate;
    constexpr double max_rows = 9007199254740992.0;  // 2^53
    if (!(span < max_rows - 1.0)) return grid_error::too_many_rows;
    // The last i with lo + i / rate <= hi, from an estimate that rounding may have put one off.
    // A time within a millionth of a step past `hi` counts as reaching it, so that a decimal
    // range such as 0.1 to 0.3 at 10 Hz (0.1 + 2 / 10 = 0.30000000000000004) keeps its end.
    const double end = hi + 1e-6 / rate;
    auto last = static_cast<std::uint64_t>(span);
    while (lo + static_cast<double>(last + 1) / rate <= end) ++last;
    while (last > 0 && lo + static_cast<double>(last) / rate > end) --last;
    from_ = lo;
    rate_ = rate;
    rows_ = last + 1;
    return grid_error::none;
}

float resampler::row_time(std::uint64_t i) const noexcept {
    return static_cast<float>(from_ + static_cast<double>(i) / rate_);
}

std::optional<float> resampler::next(std::span<float> out) noexcept {
    if (next_row_ >= rows_ || out.size() < count_) return std::nullopt;
    const float t = row_time(next_row_++);
    for (std::size_t i = 0; i < count_; ++i) out[i] = samplers_[i](t);
    return t;
}

}  // namespace inputanim
