// The block kernels compiled with the build's own flags: 16-byte vectors for the x86-64 baseline
// (SSE2) and other targets, 32-byte ones when the build itself targets AVX2. (Vectors wider than
// the target's registers are split by the compiler badly enough to lose to the scalar loop.)
#if defined(__AVX2__)
#define INPUTANIM_KERNEL_LANES 8
#else
#define INPUTANIM_KERNEL_LANES 4
#endif
#include "detail/kernel_loops.hpp"

namespace inputanim::detail {

INPUTANIM_KERNEL_TABLE(baseline_kernels, "baseline");

}  // namespace inputanim::detail
