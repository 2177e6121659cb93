// The block kernels for processors with AVX2: this translation unit alone is compiled with -mavx2
// (CMakeLists.txt, x86-64 only), and kernels.cpp takes its table only when the processor has it.
#define INPUTANIM_KERNEL_LANES 8
#include "detail/kernel_loops.hpp"

namespace inputanim::detail {

INPUTANIM_KERNEL_TABLE(avx2_kernels, "avx2");

}  // namespace inputanim::detail
