// One opened recording: the input it came through, what its bytes live in (the input's mapping,
// or the bytes read or inflated into memory), the recording walked over them, and the guard
// every read of a mapping runs under. Every reader of a whole recording (the commands, the
// viewer, the Python module, the index) opens one this way. Only in builds with
// INPUTANIM_WITH_MAPPING (the I/O layer).
//
//     inputanim::loaded_recording loaded;
//     const inputanim::whole_input& w = loaded.load(name, options);   // read_whole
//     if (w.io || w.invalid) ...
//     std::error_code io;
//     const inputanim::error e = loaded.open({options.layout, options.limits}, true, io);
//     io = loaded.run([&] { ... loaded.recording() ... });           // guarded when mapped
#pragma once

#include <cstddef>
#include <span>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "inputanim/guard.hpp"
#include "inputanim/input.hpp"
#include "inputanim/recording.hpp"
#include "inputanim/validate.hpp"

namespace inputanim {

class loaded_recording {
  public:
    loaded_recording() noexcept = default;
    // The bytes stay where they are (a mapping, or the storage's own buffer): a move keeps them
    // and the recording's views over them.
    loaded_recording(loaded_recording&&) noexcept = default;
    loaded_recording& operator=(loaded_recording&&) noexcept = default;
    loaded_recording(const loaded_recording&) = delete;
    loaded_recording& operator=(const loaded_recording&) = delete;
    ~loaded_recording() = default;

    // Reads `in` whole (read_whole under `options`) and returns the result, which whole() keeps.
    // The input is kept while the bytes are its mapping, and let go once they are in memory.
    const whole_input& load(inputanim::input in, const validate_options& options) noexcept;
    // input::open(name) then load(in): an open that fails is the result's `io`.
    const whole_input& load(std::string_view name, const validate_options& options) noexcept;
    // input::from_bytes(bytes) then load(in): bytes that arrive whole in memory (an upload), a
    // gzip stream inflated as a .bin.gz on disk is.
    const whole_input& load_bytes(std::span<const std::byte> bytes,
                                  const validate_options& options) noexcept;
    // Nothing loaded: the input could not be had, for the reason `io` that whole() then gives.
    const whole_input& unreadable(std::error_code io) noexcept;

    const whole_input& whole() const noexcept { return whole_; }
    // The recording's bytes (whole().bytes): the input's mapping, or the storage.
    std::span<const std::byte> bytes() const noexcept { return whole_.bytes; }
    // Whether bytes() is a mapping, which another process may truncate: read it through run().
    bool mapped() const noexcept { return whole_.mapped; }
    // bytes() with where they live, for a reader handed them (it reads them through its run()).
    held_bytes held() const noexcept {
        return whole_.mapped ? held_bytes::mapping(whole_.bytes)
                             : held_bytes::in_memory(whole_.bytes);
    }
    // The input while bytes() is its mapping; not open otherwise.
    const inputanim::input& input() const noexcept { return in_; }

    // Runs f(), which reads bytes() (or what was read before damage) without allocating: under
    // guarded() when they are a mapping, so that a page another process cut off ends it as
    // std::errc::io_error instead of a SIGBUS; else as it is.
    template <class F>
    std::error_code run(F&& f) const {
        return held().run(std::forward<F>(f));
    }

    // Walks bytes()' structure into recording() and returns its structural error. With
    // `by_reads` a mapping is first walked by reads of the input (recording::open_by_reads: no
    // page of the mapping touched), then through the mapping when that walk gives up. `io` when
    // a page of the mapping vanished (the recording is then incomplete).
    error open(const read_options& options, bool by_reads, std::error_code& io) noexcept;
    const inputanim::recording& recording() const noexcept { return rec_; }

    // The checks of `options` over bytes(): validate() (which guards its own reads of a mapping;
    // a page cut off is an io_error report). With `by_reads` a mapping is read from the input a
    // MiB at a time into a chunk_validator instead, so that none of its pages stays in memory:
    // the stream validator's report, whose error is validate()'s (its warnings are those of
    // docs/STREAMING.md). `io` when those reads fail (not_enough_memory when the buffer cannot be
    // had).
    report check(const validate_options& options, bool by_reads,
                 std::error_code& io) const noexcept;

    // A mapping replaced by a copy of its bytes in the storage, read from the input (the
    // mapping's pages stay out of memory), and the input let go, before open() walks them:
    // io_error when the file became shorter than it was when loaded. Nothing to do for bytes
    // already in memory.
    std::error_code copy() noexcept;

  private:
    inputanim::input in_;
    std::vector<std::byte> storage_;
    whole_input whole_;
    inputanim::recording rec_;
};

}  // namespace inputanim
