// The cross-correlation by FFT is the sum at every lag, as computed directly, for series of any
// lengths (equal or not, powers of two or not, a single point).
#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <random>
#include <vector>

#include "detail/correlate.hpp"

using inputanim::detail::cross_correlation;

namespace {

std::vector<double> series(std::size_t n, unsigned seed) {
    std::mt19937 g(seed);
    std::uniform_real_distribution<double> d(-1.0, 1.0);
    std::vector<double> v(n);
    for (double& x : v) x = d(g);
    return v;
}

double direct(const std::vector<double>& a, const std::vector<double>& b, std::ptrdiff_t lag) {
    double sum = 0.0;
    for (std::ptrdiff_t i = 0; i < std::ptrdiff_t(a.size()); ++i) {
        const std::ptrdiff_t j = i + lag;
        if (j >= 0 && j < std::ptrdiff_t(b.size())) sum += a[std::size_t(i)] * b[std::size_t(j)];
    }
    return sum;
}

}  // namespace

TEST(CrossCorrelation, EveryLagIsTheDirectSumForSeriesOfAnyLengths) {
    const std::vector<std::pair<std::size_t, std::size_t>> sizes = {
        {1, 1}, {1, 5}, {5, 1}, {2, 2}, {3, 7}, {16, 16}, {17, 9}, {300, 1000}, {1024, 1025}};
    unsigned seed = 1;
    for (const auto& [na, nb] : sizes) {
        const std::vector<double> a = series(na, seed++);
        const std::vector<double> b = series(nb, seed++);
        const cross_correlation c(a, b);
        for (std::ptrdiff_t lag = -std::ptrdiff_t(na - 1); lag <= std::ptrdiff_t(nb - 1); ++lag) {
            // The transform's rounding grows with log N; 1e-9 is far above it and far below the
            // sums' size (about sqrt(n)).
            EXPECT_NEAR(c.at(lag), direct(a, b, lag), 1e-9) << na << " x " << nb << " at " << lag;
        }
    }
}

TEST(CrossCorrelation, ASeriesShiftedByKStepsPeaksAtLagK) {
    const std::vector<double> a = series(500, 42);
    std::vector<double> b(520, 0.0);
    for (std::size_t i = 0; i < a.size(); ++i) b[i + 13] = a[i];
    const cross_correlation c(a, b);
    std::ptrdiff_t best = 0;
    for (std::ptrdiff_t lag = -499; lag <= 519; ++lag) {
        if (c.at(lag) > c.at(best)) best = lag;
    }
    EXPECT_EQ(best, 13);
}

TEST(CrossCorrelation, AnEmptySeriesCorrelatesToNothing) {
    const std::vector<double> none;
    const std::vector<double> some = {1.0, 2.0};
    EXPECT_EQ(cross_correlation(none, some).at(0), 0.0);
    EXPECT_EQ(cross_correlation(some, none).at(0), 0.0);
}
