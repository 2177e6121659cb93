#include "inputanim/validate.hpp"

#include <cmath>
#include <limits>
#include <string>

#include "detail/checks.hpp"
#include "detail/load.hpp"
#include "detail/utf8.hpp"

namespace inputanim {

std::string_view warning_name(warning_code code) noexcept {
    switch (code) {
        case warning_code::dropped_rotation_w: return "dropped_rotation_w";
        case warning_code::non_unit_quaternion: return "non_unit_quaternion";
        case warning_code::negative_time: return "negative_time";
    }
    return "unknown";
}

std::string warning::message() const {
    switch (code) {
        case warning_code::dropped_rotation_w:
            return "rotation.w has a single key while rotation.x/y/z have many: MRTK 2.6-2.7.2 "
                   "dropped every W key after the first (MRTK issue 9831), so playback is wrong";
        case warning_code::non_unit_quaternion:
            return std::to_string(count) + " rotation key(s) far from unit length, first at key " +
                   std::to_string(keyframe) + " with length " + std::to_string(value);
        case warning_code::negative_time:
            return "first key time is negative (" + std::to_string(value) + ")";
    }
    return {};
}

namespace {

// Quaternions whose length differs from 1 by more than this are reported.
constexpr float unit_tolerance = 0.01f;

class content_checker {
public:
    explicit content_checker(std::span<const std::byte> bytes) noexcept : base_(bytes.data()) {}

    error check_curve(const curve_view& c) const noexcept {
        const std::byte* p = c.keys.data();
        const std::size_t stride = c.keys.stride();
        const bool full = stride == full_keyframe_size;
        const bool is_bool = c.kind == curve_kind::bool_curve;
        float previous = 0.0f;
        for (std::size_t i = 0; i < c.keys.size(); ++i, p += stride) {
            const detail::keyframe_fault f =
                detail::check_keyframe(p, full, is_bool, i == 0, previous);
            if (f.code != errc::ok) return at(f.code, p + f.field, c, i);
            previous = detail::load_f32_le(p);
        }
        return {};
    }

    error check_marker(const marker_view& m) const noexcept {
        if (!std::isfinite(m.time)) {
            return error{errc::non_finite, m.offset, error_place::markers, {}, m.index};
        }
        const std::size_t good = detail::valid_utf8_prefix(m.name);
        if (good != m.name.size()) {
            const auto name_offset = static_cast<std::uint64_t>(
                reinterpret_cast<const std::byte*>(m.name.data()) - base_);
            return error{errc::bad_utf8, name_offset, error_place::markers, {}, m.index};
        }
        return {};
    }

private:
    error at(errc code, const std::byte* p, const curve_view& c, std::size_t i) const noexcept {
        return error{code, static_cast<std::uint64_t>(p - base_), error_place::curve, c.id,
                     static_cast<std::int64_t>(i)};
    }
    const std::byte* base_;
};

// Quaternion length at every time where all four rotation curves have a key (keys are sorted:
// the file passed level full).
void check_unit_length(const curve_view* q[4], report& rep) noexcept {
    std::size_t cursor[3] = {0, 0, 0};
    warning w{warning_code::non_unit_quaternion, q[3]->id};
    for (std::size_t k = 0; k < q[3]->keys.size(); ++k) {
        const keyframe_view wk = q[3]->keys[k];
        const float t = wk.time();
        float xyz[3];
        bool aligned = true;
        for (std::size_t c = 0; c < 3; ++c) {
            const keyframes_view& keys = q[c]->keys;
            while (cursor[c] < keys.size() && keys[cursor[c]].time() < t) ++cursor[c];
            if (cursor[c] == keys.size() || keys[cursor[c]].time() != t) {
                aligned = false;
                break;
            }
            xyz[c] = keys[cursor[c]].value();
        }
        if (!aligned) continue;
        const float v = wk.value();
        const float length = std::sqrt(xyz[0] * xyz[0] + xyz[1] * xyz[1] + xyz[2] * xyz[2] + v * v);
        if (std::fabs(length - 1.0f) > unit_tolerance) {
            if (w.count++ == 0) {
                w.keyframe = static_cast<std::int64_t>(k);
                w.value = length;
            }
        }
    }
    if (w.count > 0) detail::add_warning(rep, w);
}

void add_warnings(const recording& rec, level lvl, report& rep) noexcept {
    for (const curve_view& c : rec.curves()) {
        if (!c.keys.empty() && c.keys.front().time() < 0.0f) {
            detail::add_warning(
                rep, warning{warning_code::negative_time, c.id, 0, 1, c.keys.front().time()});
        }
    }
    detail::for_each_rotation([&](curve_id x) {
        const curve_view* q[4];
        for (std::size_t c = 0; c < 4; ++c) {
            q[c] = rec.find(curve_id(to_index(x) + c));
            if (q[c] == nullptr) return;
        }
        if (detail::dropped_rotation_w(q[0]->keys.size(), q[1]->keys.size(), q[2]->keys.size(),
                                       q[3]->keys.size())) {
            detail::add_warning(rep,
                                warning{warning_code::dropped_rotation_w, q[3]->id, 0, 1, 0.0f});
        }
        if (lvl == level::full) check_unit_length(q, rep);
    });
}

}  // namespace

error check_content(const recording& rec) noexcept {
    const content_checker checker(rec.bytes());
    for (const curve_view& c : rec.curves()) {
        if (error e = checker.check_curve(c)) return e;
    }
    for (const marker_view& m : rec.markers()) {
        if (error e = checker.check_marker(m)) return e;
    }
    return {};
}

report validate(std::span<const std::byte> bytes, const validate_options& options) noexcept {
    report rep;
    recording rec;
    rep.error = rec.open(bytes, read_options{options.layout, options.limits});
    rep.summary = rec.summary();
    if (rep.error) return rep;
    if (options.level == level::full) rep.error = check_content(rec);
    if (rep.error) return rep;
    add_warnings(rec, options.level, rep);
    return rep;
}

}  // namespace inputanim
