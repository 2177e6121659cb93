#include "inputanim/time_window.hpp"

#include <cmath>
#include <limits>

#include "inputanim/detail/number_text.hpp"
#include "inputanim/error.hpp"

namespace inputanim {

namespace {

constexpr double float_max = std::numeric_limits<float>::max();

}  // namespace

bool time_window::holds(double t) noexcept {
    return std::abs(t) <= float_max;
}

std::error_code time_window::problem() const noexcept {
    if ((from && !holds(*from)) || (until && !holds(*until))) {
        return option_error::window_not_finite;
    }
    if (from && until && *from > *until) return option_error::window_reversed;
    return {};
}

std::string time_window::problem_text(std::string_view from_name,
                                      std::string_view until_name) const {
    const std::error_code e = problem();
    if (e == option_error::window_not_finite) {
        const bool at_from = from && !holds(*from);
        return std::string(at_from ? from_name : until_name) + " " +
               detail::number_text(at_from ? *from : *until) +
               " is not a time a recording can hold (a finite float, at most " +
               detail::number_text(float_max) + " in magnitude)";
    }
    if (e == option_error::window_reversed) {
        return std::string(from_name) + " " + detail::number_text(*from) + " is after " +
               std::string(until_name) + " " + detail::number_text(*until);
    }
    return {};
}

}  // namespace inputanim
