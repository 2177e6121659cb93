#include <bit>
#include <cmath>
#include <numbers>

#include "detail/correlate.hpp"

namespace inputanim::detail {

namespace {

using complex = std::complex<double>;

// An in-place iterative radix-2 transform of x (its size a power of two): forward with
// e^(-2 pi i jk / N), or inverse without the 1 / N. The twiddles come from one table of sin and
// cos at every j / N, not from a recurrence, so their error does not grow with N.
void transform(std::vector<complex>& x, const std::vector<complex>& twiddles, bool inverse) {
    const std::size_t n = x.size();
    for (std::size_t i = 1, j = 0; i < n; ++i) {
        std::size_t bit = n >> 1;
        for (; j & bit; bit >>= 1) j ^= bit;
        j ^= bit;
        if (i < j) std::swap(x[i], x[j]);
    }
    for (std::size_t len = 2; len <= n; len <<= 1) {
        const std::size_t stride = n / len;
        for (std::size_t start = 0; start < n; start += len) {
            for (std::size_t k = 0; k < len / 2; ++k) {
                const complex w = inverse ? std::conj(twiddles[k * stride]) : twiddles[k * stride];
                const complex u = x[start + k];
                const complex v = x[start + k + len / 2] * w;
                x[start + k] = u + v;
                x[start + k + len / 2] = u - v;
            }
        }
    }
}

}  // namespace

cross_correlation::cross_correlation(std::span<const double> a, std::span<const double> b) {
    const std::size_t na = a.size();
    const std::size_t nb = b.size();
    if (na == 0 || nb == 0) {
        values_.assign(1, complex{});
        return;
    }
    // Past na + nb - 1 points the circular correlation wraps no lag onto another.
    const std::size_t n = std::bit_ceil(na + nb - 1);
    values_.assign(n, complex{});
    // Both real series in one complex one: a as the real parts, b as the imaginary.
    for (std::size_t i = 0; i < na; ++i) values_[i].real(a[i]);
    for (std::size_t i = 0; i < nb; ++i) values_[i].imag(b[i]);
    std::vector<complex> twiddles(n / 2 == 0 ? 1 : n / 2);
    for (std::size_t j = 0; j < twiddles.size(); ++j) {
        twiddles[j] = std::polar(1.0, -2.0 * std::numbers::pi * double(j) / double(n));
    }
    transform(values_, twiddles, false);
    // With X the transform of a + ib: A_k = (X_k + conj(X_-k)) / 2, B_k = (X_k - conj(X_-k)) / 2i,
    // and the correlation's transform is conj(A_k) B_k, whose value at -k is its conjugate (the
    // correlation is real): each pair (k, -k) is read and written together.
    for (std::size_t k = 0; k <= n / 2; ++k) {
        const std::size_t m = (n - k) % n;
        const complex xk = values_[k];
        const complex xm = std::conj(values_[m]);
        const complex ak = 0.5 * (xk + xm);
        const complex bk = complex(0.0, -0.5) * (xk - xm);
        const complex c = std::conj(ak) * bk;
        values_[k] = c;
        values_[m] = std::conj(c);
    }
    transform(values_, twiddles, true);
    for (complex& v : values_) v /= double(n);
}

}  // namespace inputanim::detail
