#include "inputanim/thin.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "inputanim/error.hpp"

namespace inputanim {

namespace {

constexpr double degrees = std::numbers::pi / 180.0;

}  // namespace

std::error_code thinning::problem() const noexcept {
    if (!std::isfinite(position) || position < 0) return option_error::bad_position_tolerance;
    if (!std::isfinite(rotation_degrees) || rotation_degrees < 0 || rotation_degrees > 180) {
        return option_error::bad_rotation_tolerance;
    }
    if (partition < 0) return option_error::bad_partition;
    return {};
}

double thinning::rotation_distance() const noexcept {
    return 2 * std::sin(rotation_degrees * degrees / 4);
}

double thinning::direction_distance() const noexcept {
    return 2 * std::sin(rotation_degrees * degrees / 2);
}

void thinner::keep_run(std::span<const float> times,
                       std::span<const std::span<const float>> components, std::size_t first,
                       std::size_t last, double tolerance, int partition,
                       std::span<std::uint8_t> keep) {
    const std::size_t part = partition > 0 ? static_cast<std::size_t>(partition) : 0;
    keep[first] = 1;
    keep[last] = 1;
    for (std::size_t a = first; a < last;) {
        const std::size_t b = part == 0 ? last : std::min(last, a + part);
        keep[b] = 1;
        thin(times, components, a, b, tolerance * tolerance, keep);
        a = b;
    }
}

void thinner::thin(std::span<const float> times, std::span<const std::span<const float>> components,
                   std::size_t a, std::size_t b, double tolerance_squared,
                   std::span<std::uint8_t> keep) {
    stack_.clear();
    stack_.emplace_back(a, b);
    while (!stack_.empty()) {
        const auto [lo, hi] = stack_.back();
        stack_.pop_back();
        if (hi - lo < 2) continue;
        const double t0 = times[lo];
        const double span = static_cast<double>(times[hi]) - t0;
        double worst = 0;
        std::size_t worst_at = lo;
        for (std::size_t i = lo + 1; i < hi; ++i) {
            const double s = (times[i] - t0) / span;
            double e = 0;
            for (const std::span<const float> values : components) {
                const double v0 = values[lo];
                const double line = v0 + (static_cast<double>(values[hi]) - v0) * s;
                const double off = values[i] - line;
                e += off * off;
            }
            if (e > worst) {
                worst = e;
                worst_at = i;
            }
        }
        if (worst > tolerance_squared) {
            keep[worst_at] = 1;
            stack_.emplace_back(lo, worst_at);
            stack_.emplace_back(worst_at, hi);
        }
    }
}

}  // namespace inputanim
