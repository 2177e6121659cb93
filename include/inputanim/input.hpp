// The front door: from a name the user typed (a path, or `-` for standard input) or an open
// descriptor to the bytes of a recording, whatever they arrive as. Every command of the
// `inputanim` tool reads through here. Only in builds with INPUTANIM_WITH_MAPPING (the I/O layer).
//
//     std::error_code ec;
//     inputanim::input in = inputanim::input::open(name, ec);   // never blocks
//     const inputanim::file_check c = inputanim::validate_input(in, options);
//
// Or in one call: inputanim::validate_file(name, options). Bytes that arrive in chunks (an
// upload) go through chunk_validator. gzip is recognised by content (the first bytes 1f 8b),
// never by the name, and inflated as it is read: nothing is inflated whole unless a command asks
// for the whole recording in memory (read_whole), and then only once its header passed.
#pragma once

#include <array>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string_view>
#include <system_error>
#include <vector>

#include "inputanim/format.hpp"
#include "inputanim/offset_source.hpp"
#include "inputanim/stream.hpp"
#include "inputanim/validate.hpp"

// POSIX's, from <sys/stat.h>: stamp_of takes one.
struct stat;

namespace inputanim {

namespace detail {
class gzip_inflater;
}  // namespace detail

// How open() reaches the bytes of a regular file.
enum class file_access : std::uint8_t {
    // Mapped at once: mapped() holds the file.
    map,
    // Not mapped (is_mapped() is false until map()): for a caller that reads a small file whole
    // with read_at into a buffer of its own, or only a few bytes of a large one. Mapping a file
    // and faulting its pages in one by one costs more than one read of it up to about a MiB, and
    // unmapping it flushes the other CPUs' TLBs (docs/PERFORMANCE.md).
    reads,
};

// What fstat(2) said of a regular file when it was opened: enough to tell later whether the name
// still leads to the same bytes (a file index keeps it to skip the files that did not change).
struct file_stamp {
    std::uint64_t size = 0;
    // Nanoseconds since the Unix epoch.
    std::int64_t mtime_ns = 0;
    // A file replaced by another of the same size and mtime (a copy that keeps times) has another
    // inode.
    std::uint64_t inode = 0;

    bool operator==(const file_stamp&) const = default;
};
// The stamp of what stat(2) or fstat(2) said of a file.
file_stamp stamp_of(const struct ::stat& st) noexcept;

// Bytes an input pulls from elsewhere than a descriptor (a member of an archive inflated as it is
// read): input::from_source.
class byte_source {
  public:
    virtual ~byte_source() = default;
    // The next bytes into `buffer`; 0 at the end. `ec` when they cannot be had: an errc (the
    // inputanim category) when the bytes themselves are damaged (fault() says where), else the
    // system's error.
    virtual std::size_t read(std::span<std::byte> buffer, std::error_code& ec) noexcept = 0;
    // The damage a read failed with, its offset where the source says (an archive's byte).
    virtual error fault() const noexcept = 0;
};

// An opened input: a regular file is mapped (unless opened for reads); anything else (standard
// input named by `-`: a pipe, a terminal, a socket) is a stream read in chunks. A part of a mapped
// file (a member of an archive stored as it is) is an input of its own, and so are bytes pulled
// from a byte_source (a member inflated as it is read). Move-only; closes its descriptor.
// Its read_at reads a regular file (or a part of one) by offset: the reads of a walk that leaves
// the mapping untouched (loaded_recording).
class input : public offset_source {
  public:
    input() noexcept;
    input(input&&) noexcept;
    input& operator=(input&&) noexcept;
    input(const input&) = delete;
    input& operator=(const input&) = delete;
    ~input();

    // `-` is standard input (any type, read as a stream; a regular file there is mapped). Any
    // other name is a path, opened once without blocking: a directory is is_a_directory, a FIFO,
    // socket or device is refused at once (not_regular_file_category(), see message()), and
    // the open's own errors (no_such_file_or_directory, permission_denied, ...) are passed on.
    static input open(std::string_view name, std::error_code& ec,
                      file_access access = file_access::map) noexcept;
    // An already-open descriptor, taken over (closed with the input even on failure). With
    // `any_type` a FIFO, socket or device is read as a stream, as standard input is; without, it
    // is refused as open() refuses it.
    static input from_fd(int fd, std::error_code& ec, bool any_type = true) noexcept;
    // A copy of `bytes` in an anonymous memory file, opened as a file is (mapped; gzip
    // recognised the one way): for bytes that arrive whole in memory. No one else holds the
    // file, so its bytes cannot change under a mapping.
    static input from_bytes(std::span<const std::byte> bytes, std::error_code& ec) noexcept;
    // Bytes [offset, offset + size) of the mapped regular file `whole` (or of a part of one) as a
    // regular file of their own, mapped: they share the file's mapping, which lives as long as any
    // of them does. It has no descriptor (descriptor() is -1): read() reads the file with pread.
    // invalid_argument when `whole` is not mapped or the bytes lie past its end.
    static input part(const input& whole, std::uint64_t offset, std::uint64_t size,
                      std::error_code& ec) noexcept;
    // A stream whose bytes `source` hands out (read() calls it).
    static input from_source(std::unique_ptr<byte_source> source, std::error_code& ec) noexcept;

    bool is_open() const noexcept;
    // A regular file read from its start (mapped or not): its size when opened; for a stream,
    // nullopt.
    std::optional<std::uint64_t> file_size() const noexcept;
    // A regular file opened by name or descriptor and read from its start: its stamp when it was
    // opened (the same fstat as its size); nullopt for a stream or a part of a file.
    std::optional<file_stamp> stamp() const noexcept;
    // Maps a regular file opened with file_access::reads (nothing to do when it is mapped): the
    // error of the mapping, or invalid_argument for a stream.
    std::error_code map() noexcept;
    // A regular file: its bytes are mapped() (read them under guarded(): another process may
    // truncate the file). Otherwise the input is a stream, read by read().
    bool is_mapped() const noexcept;
    std::span<const std::byte> mapped() const noexcept;
    // The input's descriptor, -1 when it is not open or has none of its own (a part of a file, a
    // source). Stays owned by the input.
    int descriptor() const noexcept;
    // Bytes of a regular file (or of a part of one) from `offset` with pread(2), leaving the
    // mapping untouched, fewer where the file (or the part) ends; a stream's descriptor is read
    // by offset too (invalid_seek for a pipe). A source cannot be read by offset: invalid_seek.
    std::size_t read_at(std::uint64_t offset, std::span<std::byte> out,
                        std::error_code& ec) const noexcept override;
    // The next bytes of a stream into `buffer` (blocking until some arrive); 0 at its end. For a
    // mapped input, the next bytes of the file read with pread(2), leaving the mapping's pages
    // untouched (io_error when the file became shorter than it was when opened). A source's read
    // that fails on its bytes' own damage (an errc) leaves it in fault().
    std::size_t read(std::span<std::byte> buffer, std::error_code& ec) noexcept;
    // The damage the last failed read of a source found (a member of an archive damaged or past a
    // budget: an errc of the archive's, at a byte of the archive); none otherwise.
    error fault() const noexcept;

  private:
    // from_fd for a descriptor that open() just opened: at its start, to be mapped or not.
    static input adopt(int fd, std::error_code& ec, bool any_type, bool at_start,
                       file_access access) noexcept;

    struct impl;
    std::unique_ptr<impl> impl_;
};

// Calls `call` (a system call: -1 and errno on failure) again for as long as a signal interrupts
// it (EINTR), and returns what it returned last: the one retry of an interrupted call, which every
// read and write of the library and the tools goes through.
template <class Call>
auto retry_interrupted(Call&& call) noexcept(noexcept(call())) -> decltype(call()) {
    for (;;) {
        const auto result = call();
        if (result >= 0 || errno != EINTR) return result;
    }
}

// Reads out.size() bytes of the file open as `fd` from `offset` (pread(2)), fewer only when the
// file ends first: the count read. A failed read is `ec` (and 0).
std::size_t read_at(int fd, std::uint64_t offset, std::span<std::byte> out,
                    std::error_code& ec) noexcept;
// Writes all of `bytes` to `fd`; a write that takes nothing is io_error.
std::error_code write_all(int fd, std::span<const std::byte> bytes) noexcept;

// Whether `in` is gzip: a regular file whose first bytes are gzip's 1f 8b, read with pread (a
// touch of the mapping would fault in a whole folio around its first page). False for a stream,
// which chunk_validator sniffs as it reads. `ec` when the file could not be read.
bool is_gzip(const input& in, std::error_code& ec) noexcept;

// The first bytes of a content that tell a recording (starts_like_recording, may_be_2019).
inline constexpr std::size_t recording_head_size = sizeof file_magic;

// Whether `head`, the first bytes of some content, may be a recording with a header: it starts
// with the magic, or is shorter than the magic and a prefix of it (an empty head included), a
// recording cut short. The 2019 layouts have no magic (may_be_2019 tells those).
bool starts_like_recording(std::span<const std::byte> head) noexcept;

// Whether `head`, the first bytes of some content, start as gzip does (1f 8b).
bool starts_like_gzip(std::span<const std::byte> head) noexcept;

// The error category of an input refused for its type: "not a regular file (a FIFO); use - to
// read standard input". Its values are the S_IFMT bits of the file's type.
const std::error_category& not_regular_file_category() noexcept;

// Where a chunk_validator hands the recording's bytes (inflated, for gzip) as it takes them: to
// keep them (read_whole) or to convert them as they arrive (`inputanim convert`).
class recording_receiver {
  public:
    // The next bytes of the recording, in file order, just taken by the validator (so its
    // layout_known() covers them). False stops the input: the chunk_validator takes no more
    // bytes and its feed() returns `error`, while its result() stays the verdict on the bytes
    // taken so far; the receiver knows why it stopped.
    virtual bool receive(std::span<const std::byte> bytes) noexcept = 0;

  protected:
    ~recording_receiver() = default;
};

// A validator of bytes arriving in chunks that recognises gzip by content: when the first two
// bytes are 1f 8b the chunks are inflated as they come (zlib) and the inflated recording is
// checked by a stream_validator, else the chunks go to the stream validator as they are. The
// report is the stream validator's over the recording (docs/STREAMING.md); a gzip stream that
// cannot be inflated (bad header, bad data, bad CRC or length, cut short, or bytes after the
// last member that do not start another) is bad_compression at the compressed bytes taken when
// inflation failed. The max_bytes limit applies to the inflated recording and stops the
// inflation. Memory is bounded: about 60 KiB for zlib and one piece of inflated bytes.
class chunk_validator {
  public:
    explicit chunk_validator(const validate_options& options = {}) noexcept;
    chunk_validator(chunk_validator&&) noexcept;
    chunk_validator& operator=(chunk_validator&&) noexcept;
    chunk_validator(const chunk_validator&) = delete;
    chunk_validator& operator=(const chunk_validator&) = delete;
    ~chunk_validator();

    // Returns `error` once the verdict is final. For gzip never `done`: the gzip trailer (the
    // CRC that vouches for the bytes) follows the recording's last byte.
    stream_status feed(std::span<const std::byte> chunk) noexcept;
    const report& finish() noexcept;
    const report& result() const noexcept;

    // Hands every recording byte taken from now on to `receiver` (null: to nobody), which must
    // outlive the feeding.
    void pass_to(recording_receiver* receiver) noexcept { receiver_ = receiver; }
    // Whether the receiver stopped the input.
    bool stopped() const noexcept { return stopped_; }
    // The recording validator's layout_known(): the header the recording is read with, once
    // certain.
    std::optional<file_header> layout_known() const noexcept { return validator_.layout_known(); }

    // Whether the bytes are gzip (known after the first two bytes).
    bool gzip() const noexcept { return gzip_; }
    // Recording bytes taken up to the verdict (inflated ones for gzip).
    std::uint64_t recording_bytes() const noexcept { return validator_.bytes_consumed(); }
    // gzip only: the compressed bytes taken.
    std::optional<std::uint64_t> compressed_bytes() const noexcept;
    // The recording's first bytes taken (inflated for gzip), up to recording_head_size, whatever
    // the validator made of them: what found_recording tells a recording by.
    std::span<const std::byte> head() const noexcept { return {head_.data(), head_size_}; }

  private:
    void take(std::span<const std::byte> bytes) noexcept;
    void fail(errc code, std::uint64_t offset) noexcept;
    bool accept(std::span<const std::byte> piece) noexcept;

    stream_validator validator_;
    std::unique_ptr<detail::gzip_inflater> inflater_;

    // Set when the input failed below the recording (bad_compression, or io_error when memory
    // ran out): the verdict instead of the validator's.
    report fault_{};
    bool faulted_ = false;
    recording_receiver* receiver_ = nullptr;
    bool stopped_ = false;
    std::byte first_{};
    std::uint8_t held_ = 0;
    std::array<std::byte, recording_head_size> head_{};
    std::size_t head_size_ = 0;
    bool decided_ = false;
    bool gzip_ = false;
    bool finished_ = false;
};

// What `inputanim validate --json` says of one input.
struct file_check {
    report rep{};
    // The recording's size: the file's, or for gzip or a stream the bytes read up to the verdict.
    std::uint64_t bytes = 0;
    // gzip only: the compressed bytes read.
    std::optional<std::uint64_t> compressed_bytes;
    // The input could not be opened or read whole: `rep` is then no verdict.
    std::error_code io;
    // The recording's first bytes (inflated for gzip), up to recording_head_size.
    std::array<std::byte, recording_head_size> head{};
    std::size_t head_size = 0;
};

// Whether a content that a walk found (a file in a folder, a member of an archive) rather than
// one the user named is a recording, from what validate_input said of it: its first bytes start
// like one (starts_like_recording), or may begin a 2019 layout (may_be_2019) and it read as one
// with a keyframe and a sound structure. A run of NUL bytes of the right length walks as a June
// 2019 file of empty curves, which no recorder writes; other files are not recordings.
bool found_recording(const file_check& c) noexcept;

// Validates an opened input: a mapped plain file whole (options.threads apply), a gzip file or a
// stream chunk by chunk through chunk_validator.
file_check validate_input(input& in, const validate_options& options) noexcept;
// input::open(name) then validate_input: what `inputanim validate` reports for `name`.
file_check validate_file(std::string_view name, const validate_options& options) noexcept;

// The recording all at once, for what needs random access (views, sampling).
struct whole_input {
    // The mapping of a plain regular file, or the bytes read (inflated) into the storage.
    std::span<const std::byte> bytes;
    // Whether `bytes` is a mapping: read it under guarded().
    bool mapped = false;
    // Set when the bytes could not be read whole: not the recording. An invalid header, a
    // recording passing options.limits.max_bytes (limit_exceeded, max_bytes), or a damaged gzip
    // stream (bad_compression) is `error`; then `bytes` is empty.
    error invalid{};
    std::error_code io;
    std::optional<std::uint64_t> compressed_bytes;
    // When `invalid` is the damage of what was read, not its size (a structural error of the
    // recording, or a gzip stream damaged or cut short after its header): the recording's bytes
    // read (inflated) before the reading stopped, in the storage, for a caller that plays what can
    // still be played (the viewer). Empty otherwise.
    std::span<const std::byte> read_before;
};
// A mapped plain file as it is; anything else (gzip, a stream) is read into `storage` only after
// its first bytes passed the header check (a gzip of zeros is bad_magic after one piece), growing
// with the bytes read and never past options.limits.max_bytes. The recording's structure is
// checked on the way (options.level is ignored), so a structural error is found without
// reading further.
whole_input read_whole(input& in, const validate_options& options,
                       std::vector<std::byte>& storage) noexcept;

// The whole content of `in` whatever its format, for what a library that allocates as it parses
// reads whole (the importers' YAML, glTF and CSV; import.hpp): read with read(), never through
// the mapping (a concurrent truncation would fault a parser that cannot run under guarded()), and
// inflated when its first bytes are gzip's, into `out`. Past `max_bytes` (inflated) it stops:
// limit_exceeded (limit bytes, at offset max_bytes), with nothing kept; a damaged gzip stream is
// bad_compression, at the compressed bytes taken; an archive member's damage, the member's fault.
// A read that failed, or memory refused (not_enough_memory), is `io`.
error read_content(input& in, std::uint64_t max_bytes, std::vector<std::byte>& out,
                   std::error_code& io) noexcept;

// The first bytes of the recording in a mapped input, inflated when it is gzip, into `head` (as
// many as there are, up to head.size()): enough to tell a recording by its magic.
std::size_t recording_head(const input& in, std::span<std::byte> head,
                           std::error_code& ec) noexcept;

}  // namespace inputanim
