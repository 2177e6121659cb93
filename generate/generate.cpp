#include "inputanim/generate.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <limits>
#include <numbers>
#include <ostream>
#include <span>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

namespace inputanim {

namespace {

constexpr double pi = std::numbers::pi;
constexpr double degrees = pi / 180.0;

// splitmix64 (Steele, Lea and Flood): a fixed generator and fixed conversions, so that a seed
// gives the same recording with every standard library. Each part of the scene draws from its
// own stream, so switching a block off leaves the others unchanged.
class random_stream {
  public:
    random_stream(std::uint64_t seed, std::uint64_t stream) noexcept
        : state_(mix(seed ^ mix(stream * 0x9e3779b97f4a7c15ULL + 1))) {}

    std::uint64_t next() noexcept {
        state_ += 0x9e3779b97f4a7c15ULL;
        return mix(state_);
    }
    double uniform() noexcept { return static_cast<double>(next() >> 11) * 0x1p-53; }
    double uniform(double lo, double hi) noexcept { return lo + (hi - lo) * uniform(); }
    bool chance(double p) noexcept { return uniform() < p; }

  private:
    static std::uint64_t mix(std::uint64_t z) noexcept {
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        return z ^ (z >> 31);
    }
    std::uint64_t state_;
};

enum stream_tag : std::uint64_t {
    camera_stream = 1,
    left_hand_stream,
    right_hand_stream,
    left_states_stream,
    right_states_stream,
    gaze_stream,
    marker_stream
};

struct vec3 {
    double x = 0, y = 0, z = 0;
};
vec3 operator+(vec3 a, vec3 b) noexcept {
    return {a.x + b.x, a.y + b.y, a.z + b.z};
}
vec3 operator-(vec3 a, vec3 b) noexcept {
    return {a.x - b.x, a.y - b.y, a.z - b.z};
}
vec3 operator*(double s, vec3 v) noexcept {
    return {s * v.x, s * v.y, s * v.z};
}
double length(vec3 v) noexcept {
    return std::sqrt(v.x * v.x + v.y * v.y + v.z * v.z);
}

struct quat {
    double x = 0, y = 0, z = 0, w = 1;
};
quat operator*(quat a, quat b) noexcept {
    return {a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
            a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
            a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w,
            a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z};
}
vec3 rotate(quat q, vec3 v) noexcept {
    // v + 2w (u x v) + 2 u x (u x v), u = (x, y, z).
    const vec3 u{q.x, q.y, q.z};
    const vec3 c{u.y * v.z - u.z * v.y, u.z * v.x - u.x * v.z, u.x * v.y - u.y * v.x};
    const vec3 cc{u.y * c.z - u.z * c.y, u.z * c.x - u.x * c.z, u.x * c.y - u.y * c.x};
    return v + (2 * q.w) * c + 2.0 * cc;
}
quat rot_x(double a) noexcept {
    return {std::sin(a / 2), 0, 0, std::cos(a / 2)};
}
quat rot_y(double a) noexcept {
    return {0, std::sin(a / 2), 0, std::cos(a / 2)};
}
quat rot_z(double a) noexcept {
    return {0, 0, std::sin(a / 2), std::cos(a / 2)};
}
// Unity's Euler order: roll about z, then pitch about x, then yaw about y.
quat from_euler(double yaw, double pitch, double roll) noexcept {
    return rot_y(yaw) * rot_x(pitch) * rot_z(roll);
}

struct pose {
    vec3 position;
    quat rotation;
};

double smoothstep(double s) noexcept {
    s = std::clamp(s, 0.0, 1.0);
    return s * s * (3 - 2 * s);
}

// A smooth random signal: a few sines of random amplitude, frequency and phase.
template <std::size_t N>
struct wobble {
    struct wave {
        double amplitude = 0, omega = 0, phase = 0;
    };
    std::array<wave, N> waves{};

    wobble() = default;
    wobble(random_stream& r, double amplitude_lo, double amplitude_hi, double hz_lo,
           double hz_hi) noexcept {
        for (wave& w : waves) {
            w.amplitude = r.uniform(amplitude_lo, amplitude_hi);
            w.omega = 2 * pi * r.uniform(hz_lo, hz_hi);
            w.phase = r.uniform(0, 2 * pi);
        }
    }
    double operator()(double t) const noexcept {
        double v = 0;
        for (const wave& w : waves) v += w.amplitude * std::sin(w.omega * t + w.phase);
        return v;
    }
    double slope(double t) const noexcept {
        double v = 0;
        for (const wave& w : waves) v += w.amplitude * w.omega * std::cos(w.omega * t + w.phase);
        return v;
    }
};

// Movements that happen one after another: each eases from the previous total to the next over
// its duration (a smoothstep), and nothing moves between them.
class eased_steps {
  public:
    struct step {
        double start = 0, duration = 0;
        std::array<double, 2> delta{};
    };

    // In time order, each step starting after the previous one ends.
    void add(step s) {
        const std::array<double, 2> before = steps_.empty() ? std::array<double, 2>{} : end_value();
        steps_.push_back(s);
        totals_.push_back(before);
    }
    double end_time() const noexcept {
        return steps_.empty() ? 0.0 : steps_.back().start + steps_.back().duration;
    }

    // The value at t, and how fast it is changing (per second).
    std::pair<std::array<double, 2>, std::array<double, 2>> at(double t) const noexcept {
        const auto after = std::upper_bound(steps_.begin(), steps_.end(), t,
                                            [](double v, const step& s) { return v < s.start; });
        if (after == steps_.begin()) return {};
        const auto k = static_cast<std::size_t>(after - steps_.begin()) - 1;
        const step& s = steps_[k];
        const double u = std::clamp((t - s.start) / s.duration, 0.0, 1.0);
        const double ease = smoothstep(u);
        const double rate = u < 1 ? 6 * u * (1 - u) / s.duration : 0.0;
        std::pair<std::array<double, 2>, std::array<double, 2>> out;
        for (std::size_t d = 0; d < 2; ++d) {
            out.first[d] = totals_[k][d] + ease * s.delta[d];
            out.second[d] = rate * s.delta[d];
        }
        return out;
    }

  private:
    std::array<double, 2> end_value() const noexcept {
        std::array<double, 2> v = totals_.back();
        for (std::size_t d = 0; d < 2; ++d) v[d] += steps_.back().delta[d];
        return v;
    }
    std::vector<step> steps_;
    std::vector<std::array<double, 2>> totals_;
};

// A person who mostly stands, looking about, and now and then turns or walks a few steps. The
// body frame (position without the head bob and sway, heading without the glances) carries the
// hands.
class camera_motion {
  public:
    camera_motion(std::uint64_t seed, double duration) {
        random_stream r(seed, camera_stream);
        sway_x_ = wobble<2>(r, 0.004, 0.012, 0.05, 0.3);
        sway_y_ = wobble<2>(r, 0.003, 0.008, 0.05, 0.3);
        sway_z_ = wobble<2>(r, 0.004, 0.012, 0.05, 0.3);
        glance_ = wobble<2>(r, 2 * degrees, 6 * degrees, 0.03, 0.12);
        pitch_ = wobble<2>(r, 1 * degrees, 3 * degrees, 0.03, 0.12);
        roll_ = wobble<2>(r, 0.3 * degrees, 1 * degrees, 0.03, 0.12);
        step_omega_ = 2 * pi * r.uniform(1.6, 2.0);
        for (double t = r.uniform(1, 8); t < duration; t = turns_.end_time() + r.uniform(4, 15)) {
            const double turn = r.uniform(-45, 45) * degrees;
            turns_.add({t, std::abs(turn) / (r.uniform(40, 80) * degrees) + 0.3, {turn, 0}});
        }
        for (double t = r.uniform(3, 20); t < duration; t = walks_.end_time() + r.uniform(8, 30)) {
            const double heading = turns_.at(t).first[0] + r.uniform(-40, 40) * degrees;
            const double distance = r.uniform(0.4, 2.0);
            walks_.add({t,
                        distance / r.uniform(0.3, 0.55),
                        {distance * std::sin(heading), distance * std::cos(heading)}});
        }
        sway_start_ = {sway_x_(0), sway_y_(0), sway_z_(0)};
    }

    vec3 body_position(double t) const noexcept {
        const auto walked = walks_.at(t).first;
        return {walked[0], 0, walked[1]};
    }
    quat body_rotation(double t) const noexcept { return rot_y(turns_.at(t).first[0]); }

    pose at(double t) const noexcept {
        const auto [walked, velocity] = walks_.at(t);
        // Walking makes the head bob at the step rate, in proportion to the walking speed.
        const double speed = std::hypot(velocity[0], velocity[1]);
        const double bob = 0.012 * std::min(1.0, speed / 0.5) * std::sin(step_omega_ * t);
        const vec3 sway = vec3{sway_x_(t), sway_y_(t) + bob, sway_z_(t)} - sway_start_;
        return {vec3{walked[0], 0, walked[1]} + sway,
                from_euler(turns_.at(t).first[0] + glance_(t), pitch_(t) + 5 * degrees, roll_(t))};
    }

  private:
    wobble<2> sway_x_, sway_y_, sway_z_, glance_, pitch_, roll_;
    double step_omega_ = 0;
    eased_steps turns_, walks_;
    vec3 sway_start_;
};

// Which samples a two-state curve is 1 at: its state at sample 0 and the samples where it flips.
struct toggles {
    bool initial = false;
    std::vector<std::size_t> changes;
};

toggles make_toggles(random_stream& r, std::size_t samples, double rate, bool initial, double on_lo,
                     double on_hi, double off_lo, double off_hi) {
    toggles out{initial, {}};
    bool state = initial;
    double t = 0;
    std::size_t previous = 0;
    for (;;) {
        t += state ? r.uniform(on_lo, on_hi) : r.uniform(off_lo, off_hi);
        const double at = std::ceil(t * rate);
        if (!(at < static_cast<double>(samples))) break;
        const std::size_t index = std::max(previous + 1, static_cast<std::size_t>(at));
        if (index >= samples) break;
        out.changes.push_back(index);
        previous = index;
        t = static_cast<double>(index) / rate;
        state = !state;
    }
    return out;
}

std::vector<bool> expand(const toggles& tg, std::size_t samples) {
    std::vector<bool> out(samples);
    bool state = tg.initial;
    std::size_t next = 0;
    for (std::size_t i = 0; i < samples; ++i) {
        if (next < tg.changes.size() && tg.changes[next] == i) {
            state = !state;
            ++next;
        }
        out[i] = state;
    }
    return out;
}

// A right hand in its wrist frame (metres): +z along the fingers, +y the back of the hand, the
// thumb towards -x. The left hand is its mirror image.
struct finger_shape {
    vec3 base;     // the metacarpal joint, near the wrist
    vec3 knuckle;  // where the metacarpal ends
    std::array<double, 3> bones;
    std::array<double, 3> max_flex;
    double spread;  // how far the finger fans out when the hand opens
};
const std::array<finger_shape, 4> finger_shapes = {{
    {{-0.010, 0.0, 0.022}, {-0.024, 0.004, 0.092}, {0.040, 0.024, 0.021}, {75, 95, 65}, -1.0},
    {{-0.002, 0.0, 0.024}, {-0.004, 0.006, 0.094}, {0.045, 0.028, 0.023}, {80, 100, 70}, 0.0},
    {{0.006, 0.0, 0.023}, {0.014, 0.004, 0.088}, {0.042, 0.027, 0.022}, {85, 100, 70}, 0.7},
    {{0.013, -0.002, 0.021}, {0.030, -0.001, 0.080}, {0.033, 0.019, 0.019}, {90, 100, 70}, 1.4},
}};
// Each metacarpal points from its base to its knuckle.
const std::array<quat, 4> metacarpal_frames = [] {
    std::array<quat, 4> out;
    for (std::size_t f = 0; f < out.size(); ++f) {
        const vec3 bone = finger_shapes[f].knuckle - finger_shapes[f].base;
        out[f] = rot_y(std::atan2(bone.x, bone.z)) * rot_x(-std::atan2(bone.y, bone.z));
    }
    return out;
}();
const vec3 thumb_base{-0.022, -0.014, 0.026};
const std::array<double, 3> thumb_bones = {0.045, 0.032, 0.029};
// The thumb points out and down from the palm and swings across it as it curls; with the
// pinch curls below its tip meets the index tip.
const quat thumb_frame = rot_y(-50 * degrees) * rot_x(10 * degrees);

// One sample of a hand: the wrist in world space and how far each finger is curled (0 open,
// 1 fist; thumb, index, middle, ring, pinky).
struct hand_sample {
    pose wrist;
    std::array<double, 5> curl{};
    double spread = 0;
};

class hand_motion {
  public:
    hand_motion(std::uint64_t seed, side s) noexcept : mirror_(s == side::left ? -1.0 : 1.0) {
        random_stream r(seed, s == side::left ? left_hand_stream : right_hand_stream);
        rest_ = {mirror_ * r.uniform(0.14, 0.2), r.uniform(-0.33, -0.25), r.uniform(0.3, 0.4)};
        dx_ = wobble<3>(r, 0.01, 0.035, 0.05, 0.4);
        dy_ = wobble<3>(r, 0.01, 0.03, 0.05, 0.4);
        dz_ = wobble<3>(r, 0.01, 0.035, 0.05, 0.4);
        yaw_ = wobble<2>(r, 4 * degrees, 12 * degrees, 0.05, 0.35);
        pitch_ = wobble<2>(r, 4 * degrees, 12 * degrees, 0.05, 0.35);
        roll_ = wobble<2>(r, 4 * degrees, 12 * degrees, 0.05, 0.35);
        for (std::size_t f = 0; f < curl_.size(); ++f) {
            curl_bias_[f] = r.uniform(0.25, 0.4);
            curl_[f] = wobble<2>(r, 0.03, 0.1, 0.1, 0.5);
        }
        spread_ = wobble<1>(r, 0.3, 0.5, 0.1, 0.3);
        activity_ = wobble<2>(r, 0.15, 0.22, 0.015, 0.05);
    }

    // `pinch` in [0, 1] draws the thumb and index tips together.
    hand_sample at(const camera_motion& camera, double t, double pinch) const noexcept {
        hand_sample h;
        const quat body = camera.body_rotation(t);
        // People alternate between busy moments and resting hands.
        const double a = 0.55 + activity_(t);
        const vec3 local = rest_ + a * vec3{dx_(t), dy_(t), dz_(t)};
        // Palms turned down and towards each other; the left hand mirrors yaw and roll.
        const quat turn =
            from_euler(mirror_ * (-10 * degrees + a * yaw_(t)), 15 * degrees + a * pitch_(t),
                       mirror_ * (-40 * degrees + a * roll_(t)));
        h.wrist = {camera.body_position(t) + rotate(body, local), body * turn};
        for (std::size_t f = 0; f < curl_.size(); ++f) {
            h.curl[f] = curl_bias_[f] + a * curl_[f](t);
        }
        h.curl[0] += (0.9 - h.curl[0]) * pinch;
        h.curl[1] += (0.5 - h.curl[1]) * pinch;
        h.spread = 0.5 + spread_(t);
        return h;
    }

    // A joint's world pose: the right-hand skeleton posed by the curls, mirrored for the left
    // hand (x -> -x, which maps a quaternion (x, y, z, w) to (x, -y, -z, w)), then carried by the
    // wrist.
    pose joint_pose(joint j, const hand_sample& h) const noexcept {
        pose p = local_pose(j, h);
        if (mirror_ < 0) {
            p.position.x = -p.position.x;
            p.rotation = {p.rotation.x, -p.rotation.y, -p.rotation.z, p.rotation.w};
        }
        return {h.wrist.position + rotate(h.wrist.rotation, p.position),
                h.wrist.rotation * p.rotation};
    }

  private:
    static pose local_pose(joint j, const hand_sample& h) noexcept {
        const auto index = static_cast<std::size_t>(j);
        if (j == joint::wrist) return {};
        if (j == joint::palm) {
            const vec3 k = finger_shapes[1].knuckle;
            return {vec3{0.5 * k.x, -0.012, 0.5 * k.z}, {}};
        }
        if (index <= static_cast<std::size_t>(joint::thumb_tip)) {
            return thumb_pose(index - static_cast<std::size_t>(joint::thumb_metacarpal), h);
        }
        const std::size_t from = index - static_cast<std::size_t>(joint::index_metacarpal);
        return finger_pose(from / 5, from % 5, h);
    }

    // Thumb joints 0..3: metacarpal, proximal, distal, tip.
    static pose thumb_pose(std::size_t k, const hand_sample& h) noexcept {
        const double c = h.curl[0];
        pose p{thumb_base, thumb_frame * rot_y(c * 30 * degrees) * rot_x(c * 7.5 * degrees)};
        const std::array<quat, 3> bends = {rot_y(c * 30 * degrees) * rot_x(c * 15 * degrees),
                                           rot_x(c * 19.5 * degrees), quat{}};
        for (std::size_t i = 0; i < k; ++i) {
            p.position = p.position + rotate(p.rotation, {0, 0, thumb_bones[i]});
            p.rotation = p.rotation * bends[i];
        }
        return p;
    }

    // Finger joints 0..4: metacarpal, knuckle, middle, distal, tip.
    static pose finger_pose(std::size_t f, std::size_t k, const hand_sample& h) noexcept {
        const finger_shape& s = finger_shapes[f];
        const double c = h.curl[f + 1];
        pose p{s.base, metacarpal_frames[f]};
        if (k == 0) return p;
        p.position = s.knuckle;
        p.rotation = p.rotation * rot_y(s.spread * h.spread * (1 - c) * 8 * degrees) *
                     rot_x(c * s.max_flex[0] * degrees);
        for (std::size_t i = 1; i < k; ++i) {
            p.position = p.position + rotate(p.rotation, {0, 0, s.bones[i - 1]});
            if (i < 3) p.rotation = p.rotation * rot_x(c * s.max_flex[i] * degrees);
        }
        return p;
    }

    double mirror_;
    vec3 rest_;
    wobble<3> dx_, dy_, dz_;
    wobble<2> yaw_, pitch_, roll_;
    std::array<wobble<2>, 5> curl_{};
    std::array<double, 5> curl_bias_{};
    wobble<1> spread_;
    wobble<2> activity_;
};

// Tracking and pinching of one hand, per sample. Pinching needs tracking.
struct hand_states {
    std::vector<bool> tracked;
    std::vector<bool> pinching;
};

hand_states make_hand_states(std::uint64_t seed, side s, std::size_t samples, double rate) {
    random_stream r(seed, s == side::left ? left_states_stream : right_states_stream);
    // The hand leaves the view now and then; the pinches are short.
    const bool tracked_at_start = r.chance(0.85);
    const toggles tracked = make_toggles(r, samples, rate, tracked_at_start, 4, 20, 0.4, 3);
    const toggles pinch = make_toggles(r, samples, rate, false, 0.25, 1.5, 0.8, 4);
    hand_states out{expand(tracked, samples), expand(pinch, samples)};
    for (std::size_t i = 0; i < samples; ++i) out.pinching[i] = out.pinching[i] && out.tracked[i];
    return out;
}

// Eye gaze fixates points in the world for a fraction of a second, then saccades to the next.
class gaze_motion {
  public:
    gaze_motion(std::uint64_t seed, const camera_motion& camera, double duration)
        : camera_(camera) {
        random_stream r(seed, gaze_stream);
        double t = 0;
        do {
            const pose head = camera.at(t);
            const double yaw = r.uniform(-20, 20) * degrees;
            const double pitch = r.uniform(-12, 12) * degrees;
            const double distance = r.uniform(0.6, 3);
            const vec3 look{std::sin(yaw) * std::cos(pitch), std::sin(pitch),
                            std::cos(yaw) * std::cos(pitch)};
            fixations_.push_back({t, head.position + rotate(head.rotation, distance * look)});
            t += r.uniform(0.15, 0.9);
        } while (t <= duration);
    }

    // Called with non-decreasing times.
    std::pair<vec3, vec3> at(double t) noexcept {
        while (next_ + 1 < fixations_.size() && fixations_[next_ + 1].start <= t) ++next_;
        const fixation& f = fixations_[next_];
        vec3 target = f.target;
        constexpr double saccade = 0.045;
        if (next_ > 0 && t - f.start < saccade) {
            const vec3 from = fixations_[next_ - 1].target;
            target = from + smoothstep((t - f.start) / saccade) * (f.target - from);
        }
        const pose head = camera_.at(t);
        const vec3 origin = head.position + rotate(head.rotation, {0, -0.005, 0.01});
        const vec3 toward = target - origin;
        const double d = length(toward);
        return {origin, d > 1e-6 ? (1 / d) * toward : rotate(head.rotation, {0, 0, 1})};
    }

  private:
    struct fixation {
        double start;
        vec3 target;
    };
    const camera_motion& camera_;
    std::vector<fixation> fixations_;
    std::size_t next_ = 0;
};

std::size_t sample_count(const generate_options& o) noexcept {
    // The small bias keeps 0.1 s x 30 Hz at 3 steps despite binary rounding.
    return static_cast<std::size_t>(std::floor(o.seconds * o.rate + 1e-6)) + 1;
}

double time_of_last(const generate_options& o) noexcept {
    return static_cast<double>(sample_count(o) - 1) / o.rate;
}

float sample_time(std::size_t i, double rate) noexcept {
    return static_cast<float>(static_cast<double>(i) / rate);
}

// The samples of one vector (a position, a quaternion or a direction) over the recording, as
// float32 like the keys they become, and the keys the thinning keeps.
class vector_series {
  public:
    vector_series(std::size_t dims, const std::vector<float>& times)
        : dims_(dims), times_(times), keep_(times.size()) {
        for (std::size_t d = 0; d < dims_; ++d) values_[d].resize(times.size());
    }

    void set(std::size_t i, std::array<double, 4> v) noexcept {
        for (std::size_t d = 0; d < dims_; ++d) values_[d][i] = static_cast<float>(v[d]);
    }

    // Samples [first, last] were recorded: keep them all (raw) or thin them.
    void keep_run(std::size_t first, std::size_t last, const generate_options& o,
                  double tolerance) {
        if (o.raw) {
            std::fill(keep_.begin() + static_cast<std::ptrdiff_t>(first),
                      keep_.begin() + static_cast<std::ptrdiff_t>(last) + 1, 1);
            return;
        }
        std::array<std::span<const float>, 4> components;
        for (std::size_t d = 0; d < dims_; ++d) components[d] = values_[d];
        thinner_.keep_run(times_, std::span(components.data(), dims_), first, last, tolerance,
                          o.tolerances.partition, keep_);
    }

    // The kept samples of one component as keys.
    void keys(std::size_t d, curve& out) const {
        out.keys.clear();
        out.keys.reserve(static_cast<std::size_t>(std::count(keep_.begin(), keep_.end(), 1)));
        for (std::size_t i = 0; i < times_.size(); ++i) {
            if (keep_[i] != 0) {
                keyframe k;
                k.time = times_[i];
                k.value = values_[d][i];
                out.keys.push_back(k);
            }
        }
    }

  private:
    std::size_t dims_;
    const std::vector<float>& times_;
    std::array<std::vector<float>, 4> values_;
    std::vector<std::uint8_t> keep_;
    thinner thinner_;
};

// Calls `visit(first, last)` for each run of true in `on`.
template <class Visit>
void for_each_run(const std::vector<bool>& on, Visit&& visit) {
    for (std::size_t i = 0; i < on.size();) {
        if (!on[i]) {
            ++i;
            continue;
        }
        std::size_t j = i;
        while (j + 1 < on.size() && on[j + 1]) ++j;
        visit(i, j);
        i = j + 1;
    }
}

class curve_producer {
  public:
    explicit curve_producer(const generate_options& o)
        : o_(o),
          samples_(sample_count(o)),
          camera_(o.seed, time_of_last(o)),
          position_tolerance_(o.tolerances.position),
          rotation_tolerance_(o.tolerances.rotation_distance()),
          direction_tolerance_(o.tolerances.direction_distance()) {
        times_.resize(samples_);
        for (std::size_t i = 0; i < samples_; ++i) times_[i] = sample_time(i, o.rate);
    }

    template <class Sink>
    void run(Sink&& sink) {
        const block_flags written = v1_header(1, o_.minor, o_.layout, o_.blocks).blocks;
        if (written.camera) {
            if (o_.blocks.camera) {
                camera_curves(sink);
            } else {
                empty_curves(camera_first, pose_channel_count, sink);
            }
        }
        if (written.hands && !stopped_) {
            if (o_.blocks.hands) {
                hand_curves(sink);
            } else {
                empty_curves(hand_state_first, gaze_first - hand_state_first, sink);
            }
        }
        if (written.gaze && !stopped_) gaze_curves(sink);
    }

    // Ends run() early: what is already computed (the current joint's or block's curves) is still
    // passed to the sink, nothing after it is computed.
    void stop() noexcept { stopped_ = true; }

  private:
    double time_of(std::size_t i) const noexcept { return static_cast<double>(i) / o_.rate; }

    template <class Sink>
    void empty_curves(std::size_t first, std::size_t count, Sink& sink) {
        curve_.keys.clear();
        for (std::size_t id = first; id < first + count; ++id) sink(curve_id(id), curve_);
    }

    template <class Sink>
    void emit(const vector_series& series, std::size_t dims, std::size_t first_id, Sink& sink) {
        for (std::size_t d = 0; d < dims; ++d) {
            series.keys(d, curve_);
            sink(curve_id(first_id + d), curve_);
        }
    }

    template <class Sink>
    void pose_curves(const std::vector<pose>& poses, const std::vector<bool>& present,
                     std::size_t first_id, Sink& sink) {
        vector_series position(3, times_);
        vector_series rotation(4, times_);
        for_each_run(present, [&](std::size_t a, std::size_t b) {
            for (std::size_t i = a; i <= b; ++i) {
                const pose& p = poses[i];
                position.set(i, {p.position.x, p.position.y, p.position.z, 0});
                rotation.set(i, {p.rotation.x, p.rotation.y, p.rotation.z, p.rotation.w});
            }
            position.keep_run(a, b, o_, position_tolerance_);
            rotation.keep_run(a, b, o_, rotation_tolerance_);
        });
        emit(position, 3, first_id, sink);
        emit(rotation, 4, first_id + 3, sink);
    }

    template <class Sink>
    void camera_curves(Sink& sink) {
        std::vector<pose> poses(samples_);
        for (std::size_t i = 0; i < samples_; ++i) poses[i] = camera_.at(time_of(i));
        pose_curves(poses, std::vector<bool>(samples_, true), camera_first, sink);
    }

    void bool_curve(const std::vector<bool>& state) {
        curve_.keys.clear();
        for (std::size_t i = 0; i < state.size(); ++i) {
            if (i == 0 || state[i] != state[i - 1]) {
                keyframe k;
                k.time = times_[i];
                k.value = state[i] ? 1.0f : 0.0f;
                curve_.keys.push_back(k);
            }
        }
    }

    template <class Sink>
    void hand_curves(Sink& sink) {
        const std::array<hand_states, 2> states = {
            make_hand_states(o_.seed, side::left, samples_, o_.rate),
            make_hand_states(o_.seed, side::right, samples_, o_.rate)};
        for (const auto s : {hand_state::left_tracked, hand_state::right_tracked,
                             hand_state::left_pinching, hand_state::right_pinching}) {
            const bool left = s == hand_state::left_tracked || s == hand_state::left_pinching;
            const bool tracked = s == hand_state::left_tracked || s == hand_state::right_tracked;
            const hand_states& h = states[left ? 0 : 1];
            bool_curve(tracked ? h.tracked : h.pinching);
            sink(hand_state_curve(s), curve_);
        }
        for (const side s : {side::left, side::right}) {
            if (stopped_) return;
            const hand_states& h = states[s == side::left ? 0 : 1];
            const hand_motion hand(o_.seed, s);
            std::vector<hand_sample> frames(samples_);
            double pinch = 0, pinch_from = 0, changed_at = 0;
            for (std::size_t i = 0; i < samples_; ++i) {
                const double t = time_of(i);
                if (i > 0 && h.pinching[i] != h.pinching[i - 1]) {
                    pinch_from = pinch;
                    changed_at = t;
                }
                // The fingers close and open over 150 ms rather than jumping with the state.
                const double goal = h.pinching[i] ? 1.0 : 0.0;
                pinch = pinch_from + (goal - pinch_from) * smoothstep((t - changed_at) / 0.15);
                if (h.tracked[i]) frames[i] = hand.at(camera_, t, pinch);
            }
            std::vector<pose> poses(samples_);
            empty_curves(to_index(joint_curve(s, joint::none, pose_channel::position_x)),
                         pose_channel_count, sink);
            for (std::size_t j = 1; j < joint_count && !stopped_; ++j) {
                for_each_run(h.tracked, [&](std::size_t a, std::size_t b) {
                    for (std::size_t i = a; i <= b; ++i) {
                        poses[i] = hand.joint_pose(joint(j), frames[i]);
                    }
                });
                pose_curves(poses, h.tracked,
                            to_index(joint_curve(s, joint(j), pose_channel::position_x)), sink);
            }
        }
    }

    template <class Sink>
    void gaze_curves(Sink& sink) {
        gaze_motion gaze(o_.seed, camera_, time_of(samples_ - 1));
        vector_series origin(3, times_);
        vector_series direction(3, times_);
        for (std::size_t i = 0; i < samples_; ++i) {
            const auto [o, d] = gaze.at(time_of(i));
            origin.set(i, {o.x, o.y, o.z, 0});
            direction.set(i, {d.x, d.y, d.z, 0});
        }
        origin.keep_run(0, samples_ - 1, o_, position_tolerance_);
        direction.keep_run(0, samples_ - 1, o_, direction_tolerance_);
        emit(origin, 3, gaze_first, sink);
        emit(direction, 3, gaze_first + 3, sink);
    }

    const generate_options& o_;
    std::size_t samples_;
    camera_motion camera_;
    double position_tolerance_;
    double rotation_tolerance_;
    double direction_tolerance_;
    std::vector<float> times_;
    curve curve_;
    bool stopped_ = false;
};

std::vector<marker> make_markers(const generate_options& o) {
    random_stream r(o.seed, marker_stream);
    const double duration = time_of_last(o);
    const auto count = static_cast<std::size_t>(o.markers);
    std::vector<marker> out;
    out.reserve(count);
    for (std::size_t k = 1; k <= count; ++k) {
        const double slot = duration / static_cast<double>(count);
        // A quarter slot of jitter either way keeps the markers in order.
        const double t = slot * (static_cast<double>(k) - 0.5 + r.uniform(-0.25, 0.25));
        const std::string n = std::to_string(k);
        // Multi-byte names (2-, 3- and 4-byte UTF-8) exercise every reader of the name bytes.
        std::string name = k % 4 == 2   ? "marker " + n + " — café"
                           : k % 4 == 0 ? "マーカー " + n + " 🎯"
                                        : "marker " + n;
        out.push_back(marker{static_cast<float>(t), std::move(name)});
    }
    return out;
}

// Hands the encoder's bytes to a stream a MiB at a time: a stream passes writes of a few KiB
// straight to the system (libstdc++'s filebuf does from 1 KiB), so the encoder's 8 KiB pieces
// would each cost a system call.
class ostream_sink final : public byte_sink {
  public:
    explicit ostream_sink(std::ostream& out) : out_(out) { pending_.reserve(piece); }

    std::error_code write(std::span<const std::byte> bytes) override {
        pending_.insert(pending_.end(), bytes.begin(), bytes.end());
        return pending_.size() >= piece ? drain() : std::error_code{};
    }

    // Writes what is pending.
    std::error_code drain() {
        out_.write(reinterpret_cast<const char*>(pending_.data()),
                   static_cast<std::streamsize>(pending_.size()));
        pending_.clear();
        return out_ ? std::error_code{} : std::make_error_code(std::errc::io_error);
    }

  private:
    static constexpr std::size_t piece = std::size_t{1} << 20;
    std::ostream& out_;
    std::vector<std::byte> pending_;
};

}  // namespace

std::error_code generate_options::problem() const noexcept {
    if (!std::isfinite(seconds) || seconds < 0) return option_error::bad_seconds;
    if (!std::isfinite(rate) || rate <= 0) return option_error::bad_rate;
    const double steps = std::floor(seconds * rate + 1e-6);
    if (!(steps < static_cast<double>(std::numeric_limits<std::int32_t>::max()))) {
        return option_error::too_many_samples;
    }
    // Float32 key times must stay strictly increasing up to the last sample.
    const float last = static_cast<float>(steps / rate);
    const float gap = std::nextafter(last, std::numeric_limits<float>::infinity()) - last;
    if (!std::isfinite(last) || !(1 / rate > 2.0 * gap)) return option_error::rate_too_high;
    if (minor != 0 && minor != 1) return option_error::bad_version;
    if (layout != layout::compact && layout != layout::full) return option_error::bad_layout;
    if (markers < 0) return option_error::bad_markers;
    return tolerances.problem();
}

std::error_code generate(const generate_options& options, model& out) {
    if (const std::error_code problem = options.problem()) return problem;
    model m;
    const file_header written = v1_header(1, options.minor, options.layout, options.blocks);
    m.major = written.major;
    m.minor = written.minor;
    m.layout = written.layout;
    m.blocks = written.blocks;
    curve_producer(options).run([&](curve_id id, curve& c) { m[id] = std::move(c); });
    m.markers = make_markers(options);
    out = std::move(m);
    return {};
}

std::error_code generate_curves(const generate_options& options,
                                const std::function<void(curve_id, const curve&)>& sink) {
    if (const std::error_code problem = options.problem()) return problem;
    curve_producer(options).run([&](curve_id id, const curve& c) { sink(id, c); });
    return {};
}

std::error_code generate_to(const generate_options& options, byte_sink& sink) {
    if (const std::error_code problem = options.problem()) return problem;
    encoder e(sink);
    e.write_header(1, options.minor, options.layout, options.blocks);
    // A sink that has failed takes nothing more, so a huge recording stops being computed too.
    curve_producer producer(options);
    producer.run([&](curve_id id, const curve& c) {
        if (e.write_curve(id, c)) producer.stop();
    });
    e.write_markers(make_markers(options));
    return e.finish();
}

std::error_code generate_to(const generate_options& options, std::ostream& out) {
    ostream_sink sink(out);
    if (const std::error_code ec = generate_to(options, sink)) return ec;
    return sink.drain();
}

}  // namespace inputanim
