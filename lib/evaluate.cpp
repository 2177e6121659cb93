#include "inputanim/evaluate.hpp"

#include <string>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <utility>

#include "detail/load.hpp"
#include "inputanim/error.hpp"
#include "inputanim/time_window.hpp"

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

constexpr double eps = std::numeric_limits<double>::epsilon();

// The time curve of a weighted Bezier segment, x(u) = 3 w1 u v^2 + 3 (1-w2) u^2 v + u^3 with
// v = 1 - u, and its derivatives.
struct bezier_time {
    double w1;
    double w2;
    double b;   // 1 - w1 - w2, to a relative error of 2 eps
    double k1;  // 3 w1
    double k2;  // 3 (1 - w2)
    double c3;  // x = c3 u^3 + c2 u^2 + k1 u
    double c2;

    bezier_time(double w1_, double w2_) noexcept
        : w1(w1_),
          w2(w2_),
          b(one_minus_sum(w1_, w2_)),
          k1(3.0 * w1_),
          k2(3.0 * (1.0 - w2_)),
          c3(3.0 * (w1_ + w2_) - 2.0),
          c2(3.0 - 6.0 * w1_ - 3.0 * w2_) {}

    // 1 - w1 - w2 with the rounding of 1 - w2 added back (Fast2Sum), so that b stays accurate
    // where it is small and x' with it: w1 = 0, w2 = 1 gives x' = 3u^2 to the last bit.
    static double one_minus_sum(double w1, double w2) noexcept {
        const double t = 1.0 - w2;
        const double lost = std::abs(w2) <= 1.0 ? -w2 - (t - 1.0) : 1.0 - (t + w2);
        return (t - w1) + lost;
    }

    // x(u) - s, with x in Bernstein form: it stays accurate for large weights, where the power
    // form would cancel, and for weights in [0, 1] its terms are not negative, so that near the
    // root the result is within a few eps of s.
    double residual(double u, double s) const noexcept {
        const double v = 1.0 - u;
        return (k1 * u * (v * v) - s) + u * u * (k2 * v + u);
    }
    // The sum of the absolute values of the terms of x: its rounding error is a few eps of this.
    double x_magnitude(double u) const noexcept {
        const double v = 1.0 - u;
        return u * (std::abs(k1) * v * v + u * (std::abs(k2) * v + u));
    }
    // x' = 3 (w1 v^2 + 2 b u v + w2 u^2), in Bernstein form too.
    double dx(double u) const noexcept {
        const double v = 1.0 - u;
        return 3.0 * (w1 * v * v + 2.0 * b * u * v + w2 * u * u);
    }
    // The rounding error of dx(u) is below 8 eps times the sum of the absolute values of its
    // terms.
    double dx_error(double u) const noexcept {
        const double v = 1.0 - u;
        return 24.0 * eps *
               (std::abs(w1) * v * v + 2.0 * std::abs(b) * u * v + std::abs(w2) * u * u);
    }
    double ddx(double u) const noexcept { return 6.0 * c3 * u + 2.0 * c2; }

    // x(u) - s, x'(u) and x''(u) / 2 in power form, shallow to evaluate. Their rounding only
    // matters in the last step, which always takes x(u) - s from residual and accounts for the
    // error of the derivative it uses.
    double power_residual(double u, double s) const noexcept {
        return (c3 * u + c2) * (u * u) + (k1 * u - s);
    }
    double power_dx(double u) const noexcept { return 3.0 * c3 * (u * u) + (2.0 * c2 * u + k1); }
    double power_half_ddx(double u) const noexcept { return 3.0 * c3 * u + c2; }

    // Whether next = u - step, the Newton step from u with d within d_error of x'(u), is within
    // eps * next of a root. Kantorovich's theorem in one variable: when
    // h = L |step| / d <= 3/8, with L a bound on |x''| over the ball around u of radius
    // 4/3 |step|, a root lies in that ball and the exact Newton point is within h |step| of it.
    // x''' = 6 c3 is constant, so L = |x''(u)| + 8 |c3| |step|. The rounding of d moves the point
    // by up to d_error / d times |step| more. With quadratic convergence the rule holds once the
    // step is near 1e-8, one step before it would shrink to an ulp.
    bool newton_converged(double u, double d, double d_error, double step,
                          double next) const noexcept {
        const double length = std::abs(step);
        const double curvature = (std::abs(ddx(u)) + 8.0 * std::abs(c3) * length) * length;
        return d > 0.0 && curvature <= 0.375 * d &&
               (curvature + d_error) * length <= eps * next * d;
    }
};

// The root of x(u) = s in [lo, hi] (0 < lo), where x is monotone and x - s goes from negative
// to positive, from u in [lo, hi]: Newton steps, replaced by bisection whenever one would leave
// the shrinking bracket (a flat spot, a zero derivative or a NaN), so it converges for every
// finite weight. While the bracket spans more than a factor of 4, which happens for tiny s (with
// weights in [0, 1] the root then lies anywhere from s / 7 to cbrt(s)), a Newton step must also
// be at most a quarter of the step before, or the bracket is halved on a log scale instead:
// Newton alone would halve its way down from 1 to a root near 1e-20 some seventy times. It stops
// at a Newton step that newton_converged accepts, at a step of a few ulps of u (near a root where
// x' vanishes too, where Newton converges only linearly), or when x(u) - s is below an ulp of
// the size of x's terms, the resolution of x(u) itself: no closer u can be told apart.
double refine_root(double s, const bezier_time& bt, double lo, double hi, double u) noexcept {
    double last_step = std::numeric_limits<double>::infinity();
    for (int i = 0; i < 100; ++i) {
        const double f = bt.residual(u, s);
        if (std::abs(f) <= eps * bt.x_magnitude(u)) return u;
        if (f < 0.0) {
            lo = u;
        } else {
            hi = u;
        }
        const double d = bt.dx(u);
        const double step = f / d;
        double next = u - step;
        const bool wide = hi > 4.0 * lo;
        if (next > lo && next < hi && !(wide && std::abs(step) > 0.25 * last_step)) {
            const double d_error = bt.dx_error(u);
            if (bt.newton_converged(u, d, d_error, step, next)) return next;
            // The root is within (multiplicity - 1) exact steps, and d is good to a factor of 2.
            if (std::abs(step) <= 2.0 * eps * next && 2.0 * d_error <= d) return next;
        } else {
            next = wide ? std::sqrt(lo * hi) : lo + 0.5 * (hi - lo);
        }
        last_step = std::abs(next - u);
        u = next;
    }
    return u;
}

// For weights in [0, 1], x is strictly increasing on [0, 1], so x(u) = s has one root there.
// Proof: x'/3 = w1 v^2 + 2 b u v + w2 u^2 with b = 1 - w1 - w2, and u, v >= 0. Every term is
// non-negative when b >= 0. Otherwise w1 v^2 + w2 u^2 >= 2 sqrt(w1 w2) u v, so
// x'/3 >= 2 u v (sqrt(w1 w2) + b), and with a = sqrt(w1), c = sqrt(w2) in [0, 1],
// sqrt(w1 w2) + b = 1 - (a^2 - a c + c^2) >= 0: a^2 - a c + c^2 is convex in a and in c, so its
// maximum over the square is at a corner, where it is at most 1. So x' >= 0, and as a non-zero
// polynomial it vanishes at isolated points only.
//
// The fast path for such weights: from u = 2s - x(s) (x(u) - u is small near weights of 1/3,
// where x(u) = u), two Halley steps and one Newton step that newton_converged must accept. No
// branch and three divisions (Newton alone takes four to six steps from s), and it converges for
// 99% of weight pairs in [0.1, 0.9] and s, 93% in [0, 1]. When it does not (a weight near 0 or 1
// with s near that end, where x' nearly vanishes, or weights near 1 and 1 with s near 1/2), the
// caller refines the point it reached.
struct root_estimate {
    double u;
    bool converged;
};

root_estimate solve_monotone_fast(double s, const bezier_time& bt) noexcept {
    double u = s * ((2.0 - bt.k1 - bt.c2 * s) - bt.c3 * (s * s));
    for (int i = 0; i < 2; ++i) {
        const double f = bt.power_residual(u, s);
        const double d = bt.power_dx(u);
        u -= f * d / (d * d - f * bt.power_half_ddx(u));
    }
    // For weights and u in [0, 1] the coefficients of power_dx are within 9 eps and its terms
    // and partial sums at most 27, so it is within 128 eps of x'(u) (25 eps at most over 2e7
    // random weights and u).
    const double d = bt.power_dx(u);
    const double step = bt.residual(u, s) / d;
    const double next = u - step;
    return {next, next > 0.0 && next <= 1.0 && bt.newton_converged(u, d, 128.0 * eps, step, next)};
}

// |x(u)| <= M u on [0, 1], so no root of x(u) = s lies below s / M.
double lowest_root(double s, double w1, double w2) noexcept {
    return s / (3.0 * std::abs(w1) + 3.0 * std::abs(1.0 - w2) + 1.0);
}

// The smallest root for weights outside [0, 1], which can make x non-monotone: [0, 1] is split
// at the critical points of x and the first piece over which x - s changes sign holds it. Out of
// line, like refine_monotone, so that the fast path keeps its values in registers.
[[gnu::noinline]] double solve_bezier_general(double s, double w1, double w2) noexcept {
    const bezier_time bt(w1, w2);
    // x'(u) / 3 = w1 (1-u)^2 + 2 b u (1-u) + w2 u^2 = qa u^2 + qb u + qc.
    const double qa = w1 - 2.0 * bt.b + w2;
    const double qb = 2.0 * (bt.b - w1);
    const double qc = w1;
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
    // at or above zero holds the smallest root. Each piece starts from its regula falsi point.
    double lo = 0.0;
    double f_lo = -s;
    auto refine = [&](double hi, double f_hi) {
        double u = lo + (hi - lo) * (f_lo / (f_lo - f_hi));
        if (!(u > lo && u < hi)) u = lo + 0.5 * (hi - lo);
        return refine_root(s, bt, lo > 0.0 ? lo : std::min(lowest_root(s, w1, w2), u), hi, u);
    };
    for (std::size_t i = 0; i < n; ++i) {
        const double f_cut = bt.residual(cuts[i], s);
        if (f_cut == 0.0) return cuts[i];
        if (f_cut > 0.0) return refine(cuts[i], f_cut);
        lo = cuts[i];
        f_lo = f_cut;
    }
    const double f_end = 1.0 - s;
    return f_end == 0.0 ? 1.0 : refine(1.0, f_end);
}

// The root for weights in [0, 1] that the fast path could not certify, from where it got to.
[[gnu::noinline]] double refine_monotone(double s, double w1, double w2, double u) noexcept {
    const double lo = lowest_root(s, w1, w2);
    return refine_root(s, bezier_time(w1, w2), lo, 1.0, u > lo && u < 1.0 ? u : s);
}

// The smallest u in [0, 1] with x(u) = s, for s in (0, 1]. x(0) = 0 and x(1) = 1, so a root
// exists.
double solve_bezier(double s, double w1, double w2) noexcept {
    if (w1 >= 0.0 && w1 <= 1.0 && w2 >= 0.0 && w2 <= 1.0) {
        const root_estimate fast = solve_monotone_fast(s, bezier_time(w1, w2));
        if (fast.converged) return fast.u;
        return refine_monotone(s, w1, w2, fast.u);
    }
    return solve_bezier_general(s, w1, w2);
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
        return saturate(v * v * (v * p0 + 3.0 * u * (p0 + w1 * m0)) +
                        u * u * (3.0 * v * (p1 - w2 * m1) + u * p1));
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

namespace {

std::string_view grid_error_description(grid_error e) noexcept {
    switch (e) {
        case grid_error::none:
            return "no error";
        case grid_error::bad_rate:
            return "the rate is not a positive finite number with a finite step 1 / rate";
        case grid_error::bad_time:
            return "a time bound is not finite or lies outside the float range";
        case grid_error::no_keys:
            return "a time bound was left to the recording, which has no keys";
        case grid_error::too_many_rows:
            return "the grid has more rows than allowed (at most 2^52 points)";
    }
    return "unknown error";
}

class grid_category final : public std::error_category {
  public:
    const char* name() const noexcept override { return "inputanim.grid"; }
    std::string message(int value) const override {
        return std::string(grid_error_description(static_cast<grid_error>(value)));
    }
};

}  // namespace

const std::error_category& grid_error_category() noexcept {
    static const grid_category category;
    return category;
}

std::error_code make_error_code(grid_error e) noexcept {
    return {static_cast<int>(e), grid_error_category()};
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

std::size_t resampler::select(std::span<const curve_id> ids) noexcept {
    std::size_t held = 0;
    for (const curve_id id : ids) {
        if (to_index(id) >= curve_id_count || rec_->find(id) == nullptr) continue;
        selected_[to_index(id)] = true;
        ++held;
    }
    rebuild();
    return held;
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

namespace {

// The gap between consecutive floats of magnitude `m` (at most 2^128): 2^(e - 24) for m in
// [2^(e-1), 2^e), and 2^-149 among the subnormals.
double float_spacing(double m) noexcept {
    int e = 0;
    std::frexp(m, &e);
    return std::ldexp(1.0, std::max(e - 24, -149));
}

}  // namespace

grid_error resampler::set_grid(double rate, std::optional<double> from, std::optional<double> to,
                               std::uint64_t max_rows) noexcept {
    points_ = 0;
    rows_ = 0;
    refused_rows_ = 0;
    rewind();
    // A rate so small that its step 1 / rate overflows has no second point to offer.
    if (!std::isfinite(rate) || !(rate > 0.0) || !std::isfinite(1.0 / rate)) {
        return grid_error::bad_rate;
    }
    const summary& sum = rec_->summary();
    if ((!from && !sum.start) || (!to && !sum.duration)) return grid_error::no_keys;
    const double lo = from ? *from : *sum.start;
    const double hi = to ? *to : *sum.duration;
    // A reversed window is an empty grid, not an error: one end may be the recording's own.
    if (const std::error_code e = time_window{lo, hi}.problem()) {
        return e == option_error::window_not_finite ? grid_error::bad_time : grid_error::none;
    }
    // Offsets from `lo` are compared, not times: at 1e30 adding a step does not change a time,
    // and a comparison of times would never find the end.
    const double width = hi - lo;
    const double span = width * rate;
    constexpr double max_points = 4503599627370496.0;  // 2^52
    if (!(span < max_points - 1.0)) return grid_error::too_many_rows;
    // The last i with i / rate <= width, or past it by less than a millionth of a step, so that
    // a decimal range such as 0.1 to 0.3 at 10 Hz (2 / 10 > 0.3 - 0.1) keeps its end. `span` is
    // rounded, so the last i is floor(span) or one of its next two neighbours: below 2^52,
    // consecutive i / rate differ.
    const double reach = width + 1e-6 / rate;
    auto last = static_cast<std::uint64_t>(span);
    for (int k = 0; k < 2 && static_cast<double>(last + 1) / rate <= reach; ++k) ++last;
    for (int k = 0; k < 2 && last > 0 && static_cast<double>(last) / rate > reach; ++k) --last;
    from_ = lo;
    to_ = hi;
    rate_ = rate;
    points_ = last + 1;
    // When a step is at least twice the float spacing at the largest time (the spacing only
    // grows with magnitude), consecutive points are more than one spacing apart and round to
    // different floats: every point is a row. Otherwise the distinct times are counted one row
    // at a time, each found in closed form, and the count stops past max_rows.
    const double largest = std::max(std::abs(lo), std::abs(hi));
    const bool every_point = 1.0 / rate >= 2.0 * float_spacing(largest);
    if (every_point) {
        rows_ = points_;
    } else {
        for (std::uint64_t i = 0; i < points_ && rows_ <= max_rows; i = next_distinct(i)) ++rows_;
    }
    if (rows_ > max_rows) {
        if (every_point) refused_rows_ = rows_;
        rows_ = 0;
        return grid_error::too_many_rows;
    }
    return grid_error::none;
}

float resampler::point_time(std::uint64_t i) const noexcept {
    // A point past `to` by less than a millionth of a step is `to`: every time lies in the range.
    return static_cast<float>(std::min(from_ + static_cast<double>(i) / rate_, to_));
}

std::uint64_t resampler::next_distinct(std::uint64_t i) const noexcept {
    const float t = point_time(i);
    const auto after = [&](std::uint64_t j) { return j >= points_ || point_time(j) > t; };
    // The times that round above t start about halfway to the next float: the point there is
    // the guess, a few points off at most, and the point times are non-decreasing in i, so a
    // gallop from the guess and a binary search find the exact first one.
    const double above = std::nextafter(t, std::numeric_limits<float>::infinity());
    const double guess_at = std::ceil(((static_cast<double>(t) + above) / 2.0 - from_) * rate_);
    std::uint64_t guess = i + 1;
    if (guess_at >= static_cast<double>(points_)) {
        guess = points_;
    } else if (guess_at > static_cast<double>(i + 1)) {
        guess = static_cast<std::uint64_t>(guess_at);
    }
    // Invariant: point lo is not after t, point hi is (or hi == points_).
    std::uint64_t lo = i;
    std::uint64_t hi = guess;
    std::uint64_t step = 1;
    if (after(guess)) {
        while (hi - lo > step) {
            if (!after(hi - step)) {
                lo = hi - step;
                break;
            }
            hi -= step;
            step *= 2;
        }
    } else {
        lo = guess;
        for (;;) {
            if (after(lo + step)) {
                hi = std::min(lo + step, points_);
                break;
            }
            lo += step;
            step *= 2;
        }
    }
    while (hi - lo > 1) {
        const std::uint64_t mid = lo + (hi - lo) / 2;
        (after(mid) ? hi : lo) = mid;
    }
    return hi;
}

float resampler::row_time(std::uint64_t i) const noexcept {
    if (rows_ == points_) return point_time(i);
    std::uint64_t point = 0;
    for (std::uint64_t row = 0; row < i && point < points_; ++row) point = next_distinct(point);
    return point_time(point);
}

std::optional<float> resampler::next(std::span<float> out) noexcept {
    if (next_row_ >= rows_ || out.size() < count_) return std::nullopt;
    const float t = point_time(next_point_);
    for (std::size_t i = 0; i < count_; ++i) out[i] = samplers_[i](t);
    ++next_row_;
    next_point_ = rows_ == points_ ? next_point_ + 1 : next_distinct(next_point_);
    return t;
}

}  // namespace inputanim
