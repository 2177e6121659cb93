#include "report/export_refusal.hpp"

#include <cmath>
#include <limits>

#include "os/text.hpp"

namespace inputanim::tools {

namespace {

// A time or value as a person reads it: the shortest digits of the float it is (the recording's
// times and values are floats), or of the double; NaN and infinity spelled out.
std::string time_text(double t) {
    if (std::isnan(t)) return "NaN";
    if (std::isinf(t)) return t > 0 ? "infinity" : "-infinity";
    const auto f = static_cast<float>(t);
    return static_cast<double>(f) == t ? number_text(f) : number_text(t);
}

std::string window_hint(const export_option_names& n) {
    return "lower " + std::string(n.rate) + " or narrow " + std::string(n.from) + "/" +
           std::string(n.to);
}

}  // namespace

bool is_export_refusal(const export_result& r) noexcept {
    return r.error && (r.error.category() == export_error_category() ||
                       r.error.category() == grid_error_category());
}

export_refusal describe_export_refusal(const export_result& r, const export_options& o,
                                       const export_option_names& n) {
    const bool gltf = o.format != export_format::anim;
    const std::string size =
        (r.size_is_lower_bound ? "more than " : "") + std::to_string(r.size) + " bytes";
    if (r.error == export_error::too_large) {
        return {export_refusal_kind::options,
                "the export would be " + size + ", more than " + std::string(n.max_bytes) + " " +
                    std::to_string(o.max_bytes) + "; raise " + std::string(n.max_bytes) +
                    (gltf ? ", " + window_hint(n) : std::string())};
    }
    if (r.error == export_error::glb_too_large) {
        return {export_refusal_kind::options,
                "the export would be " + size + ", and a .glb holds at most " +
                    std::to_string(max_glb_bytes) + " bytes (its lengths are 32-bit numbers); " +
                    window_hint(n) + ", or write .gltf"};
    }
    if (r.error == export_error::empty_window) {
        return {export_refusal_kind::options, "the window from " + std::string(n.from) + " to " +
                                                  std::string(n.to) +
                                                  " holds no time of the recording"};
    }
    if (r.error == export_error::window_not_supported) {
        return {export_refusal_kind::options,
                "a Unity clip (.anim) carries the recording's own keys, whole: " +
                    std::string(n.from) + " and " + std::string(n.to) + " apply to glTF only"};
    }
    if (r.error == grid_error::bad_rate) {
        return {export_refusal_kind::options,
                std::string(n.rate) + " " + time_text(o.rate) +
                    " is not a rate: a finite number above 0 whose step 1 / rate is finite"};
    }
    if (r.error == grid_error::too_many_rows) {
        return {export_refusal_kind::options,
                std::string(n.rate) + " " + time_text(o.rate) +
                    " makes 2^52 grid points or more over the window, past what a grid tells "
                    "apart; " +
                    window_hint(n)};
    }
    if (r.error == grid_error::no_keys) {
        return {export_refusal_kind::recording,
                "the recording has no keyframes, so no time range: give both " +
                    std::string(n.from) + " and " + std::string(n.to)};
    }
    if (r.error == grid_error::bad_time) {
        return {export_refusal_kind::recording,
                "the window is not finite: the recording's time range, or " + std::string(n.from) +
                    "/" + std::string(n.to) + ", is not made of finite float times"};
    }
    if (r.error == export_error::time_overflow) {
        return {export_refusal_kind::recording,
                "cannot export: shifted to start at 0 (by " + time_text(r.time_shift) +
                    " s), the grid's times from " + time_text(r.first_time) + " to " +
                    time_text(r.last_time) + " s would pass the largest float time (" +
                    number_text(std::numeric_limits<float>::max()) + "); export a window nearer " +
                    "its start (" + std::string(n.from) + ", " + std::string(n.to) + ")"};
    }
    if (r.error == export_error::not_finite) {
        const export_fault& f = r.fault;
        std::string what;
        switch (f.where) {
            case export_fault::place::curve_value:
                what = std::string(curve_path(f.curve)) + " is " + time_text(f.value) + " at " +
                       time_text(f.time) + " s";
                break;
            case export_fault::place::key_time:
                what = "a key time of " + std::string(curve_path(f.curve)) + " is " +
                       time_text(f.time);
                break;
            case export_fault::place::marker_time:
                what = "marker " + std::to_string(f.marker) + "'s time is " + time_text(f.time);
                break;
            case export_fault::place::summary_time:
                what = "the recording's key times reach " + time_text(f.time);
                break;
        }
        return {export_refusal_kind::recording,
                "cannot export to glTF: " + what +
                    ", and every number in a glTF is finite (a Unity clip, .anim, carries "
                    "such values as Unity writes them)"};
    }
    return {export_refusal_kind::options, "cannot export: " + r.error.message()};
}

}  // namespace inputanim::tools
