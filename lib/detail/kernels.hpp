// Level full's checks over blocks of keys, the fast path of validate's whole-buffer walk: every
// per-field rule of check_keyframe becomes a branch-free lane-wise test, and only a run of keys
// that a kernel does not prove clean is walked again key by key with check_keyframe, which finds
// the first fault with its exact code and offset. The verdict is therefore always check_keyframe's
// (the one the streaming validator gives); the kernels only make the common case, no fault, run
// at memory speed.
//
// The kernels exist once per instruction set, each compiled in its own translation unit
// (kernels_baseline.cpp with the build's flags, kernels_avx2.cpp for AVX2 on x86-64), and meet
// the rest of the library only through the plain functions of a table: pointers and sizes in,
// sizes out, never a vector, so that code built for different targets never has to agree on how
// a vector is passed. The table is chosen once, at first use.
#pragma once

#include <cstddef>
#include <span>
#include <string_view>

#include "detail/rules.hpp"

namespace inputanim::detail {

// Keys per block, the unit every kernel works in.
inline constexpr std::size_t block_keys = 8;
// Keys per test of a kernel's fault mask: long enough to amortize the test, short enough that a
// fault costs little to find again key by key.
inline constexpr std::size_t block_run = 256;

// One implementation. Index 0 of each array is for compact keys (8 bytes), 1 for full keys (28
// bytes). The checks are for float curves only: MRTK keys a bool curve only at each change, and
// it takes the key-by-key path.
struct block_kernels {
    std::string_view name;
    // Keys [from, to) of one curve, from >= 1 and keys [0, from) having passed check_keyframe:
    // returns k in [from, to] such that keys [from, k) pass, and, when k < to, either fewer
    // than block_keys keys are left or keys [k, k + block_run) (or up to `to`) may hold a fault.
    std::size_t (*clean_keys[2])(const std::byte* keys, std::size_t from, std::size_t to) noexcept;
    // The four curves q[0..3] of a rotation (x, y, z, w), n keys of each looked at, keys
    // [0, from) in lockstep (below) and from >= 1: returns K >= from, a multiple of block_keys
    // past `from`, such that keys [from, K) are in lockstep: they pass check_keyframe, and key i
    // of x, y and z has the time of key i of w and a squared quaternion length in [low, high].
    // It stops at the first run of block_run keys holding anything else.
    std::size_t (*lockstep[2])(const std::byte* const* q, std::size_t from, std::size_t n,
                               float low, float high) noexcept;
    // The same four curves, from keys that line up: how many keys [0, K) (whole blocks, K <= n)
    // have, block by block, the same times in all four curves and squared quaternion lengths in
    // [low, high]. No content rule: for the walk that finds the non_unit_quaternion warning.
    std::size_t (*aligned[2])(const std::byte* const* q, std::size_t n, float low,
                              float high) noexcept;

    // Keys from one layout into the other, as convert writes them: n compact keys (8 bytes)
    // from `in` to full keys (28 bytes) at `out`, each MRTK's linear one (linear_key_tail); and n
    // keys of 28 bytes to their time and value, returning how many of them were not MRTK's
    // linear ones (mrtk_linear_key). Bytes are moved, not read as numbers: either byte order.
    void (*widen)(const std::byte* in, std::byte* out, std::size_t n) noexcept;
    std::size_t (*narrow)(const std::byte* in, std::byte* out, std::size_t n) noexcept;
    // n compact keys from `in` to `out` with `by` taken from their times, `before` being the
    // shifted time of the key before them: returns K <= n such that keys [0, K) are written, in
    // whole blocks, each shifted time finite and above the one before it. It stops at the first
    // run of block_run keys holding anything else, which convert then shifts key by key.
    std::size_t (*shift_compact)(const std::byte* in, std::byte* out, std::size_t n, float by,
                                 float before) noexcept;
};

// The implementations compiled into the library that this processor can run, the baseline first.
std::span<const block_kernels* const> runnable_kernels() noexcept;

// The implementation validate uses: the last of runnable_kernels(), or the one named by the
// environment variable INPUTANIM_FORCE_IMPLEMENTATION (e.g. "baseline") when it is runnable.
// Chosen at the first call, once for the process.
const block_kernels& kernels() noexcept;

// The first fault among keys [from, to) of one curve, key `from - 1` having passed: its index,
// or `to` when there is none.
struct key_fault {
    std::size_t index = 0;
    keyframe_fault fault{};
};

// check_keyframe over keys [from, to), key by key: the definition the kernels are proven against.
key_fault scan_keys(const std::byte* keys, std::size_t stride, bool is_bool, std::size_t from,
                    std::size_t to) noexcept;

// The same answer as scan_keys for a float curve, found with the kernels `k`.
key_fault first_fault(const block_kernels& k, const std::byte* keys, std::size_t stride,
                      std::size_t from, std::size_t to) noexcept;

// How many keys [0, K) of a rotation's four curves q[0..3] (n keys of each looked at) are in
// lockstep, as block_kernels::lockstep defines it, found with the kernels `k` (key 0 checked key
// by key).
std::size_t lockstep_prefix(const block_kernels& k, const std::byte* const* q, std::size_t stride,
                            std::size_t n, float low, float high) noexcept;

}  // namespace inputanim::detail
