// The cross-correlation of two real series at every lag, by one complex FFT of both and one
// inverse: O(n log n) where the sum at every lag directly is O(n^2) (two 1-hour series at 60 Hz
// are 216,000 steps each: 4.7e10 products directly, 2 x 2^19-point transforms here).
#pragma once

#include <complex>
#include <cstddef>
#include <span>
#include <vector>

namespace inputanim::detail {

class cross_correlation {
  public:
    // c[L] = sum over i of a[i] * b[i + L], for every lag L from -(a.size() - 1) to
    // b.size() - 1 (the indexes where both exist). Throws std::bad_alloc: the transform holds
    // about 24 bytes per point of the next power of two at or above a.size() + b.size() - 1.
    cross_correlation(std::span<const double> a, std::span<const double> b);

    double at(std::ptrdiff_t lag) const noexcept {
        const auto n = static_cast<std::ptrdiff_t>(values_.size());
        return values_[static_cast<std::size_t>((lag % n + n) % n)].real();
    }

  private:
    // The lags in circular order: lag L at L mod N, whose real parts are the correlation.
    std::vector<std::complex<double>> values_;
};

}  // namespace inputanim::detail
