// Recordings inside archives, read in place (docs/ARCHIVES.md): tar (ustar, pax, GNU; plain, or
// compressed by gzip, bzip2, xz or zstd) walked with libarchive, and zip (stored and deflate,
// ZIP64, data descriptors) walked from its central directory. A member whose bytes the archive
// holds as they are (an uncompressed tar's, a zip entry stored) is a part of the archive's mapping
// (input::part: no copy); any other is inflated as it is read (a stream). Either is an input of
// the front door, validated, evaluated or converted as a file is. Only in builds with
// INPUTANIM_WITH_MAPPING (the I/O layer).
//
//     std::error_code ec;
//     inputanim::input file = inputanim::input::open("shard.tar", ec);
//     inputanim::archive_reader a = inputanim::archive_reader::open(file, {}, ec);
//     inputanim::archive_member m;
//     while (a.next(m)) {
//         if (m.kind != inputanim::member_kind::file) continue;
//         inputanim::input member = a.member(ec);      // valid until next()
//         const inputanim::file_check c = inputanim::validate_input(member, options);
//     }
//     if (a.fault()) ...   // the damage or budget that ended the walk, at a byte of the archive
//
// A name may also lead through an archive: input::open("take.zip/session1/a.bin") opens that
// member (split_member_path).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "inputanim/error.hpp"
#include "inputanim/input.hpp"

namespace inputanim {

enum class archive_format : std::uint8_t { tar, zip };
// "tar", "zip".
std::string_view archive_format_name(archive_format f) noexcept;

// What a member of an archive is. Only a file is read; the others are reported, never followed.
enum class member_kind : std::uint8_t {
    file,
    directory,
    symlink,
    hardlink,
    device,
    fifo,
    socket,
    // A tar member whose bytes are sparse (GNU or pax sparse): its holes are not read.
    sparse,
};
// "file", "directory", ...
std::string_view member_kind_name(member_kind k) noexcept;

struct archive_member {
    // The name as the archive holds it: bytes, not normalised (a zip name may hold any byte).
    std::string name;
    // Its place among the archive's entries, from 0 (members of one name are told apart by it).
    std::uint64_t ordinal = 0;
    member_kind kind = member_kind::file;
    // Its size as the archive says, inflated.
    std::uint64_t size = 0;
    // Where its bytes lie in the archive file, when the archive holds them as they are (a plain
    // tar's member, a zip entry stored): the member is read in place.
    std::optional<std::uint64_t> data_offset;
    // How the archive holds its bytes: "stored", "deflate" (zip), or the filter of a compressed
    // tar ("gzip", "bzip2", "xz", "zstd").
    std::string_view method = "stored";
    bool encrypted = false;
};

// The budgets of one archive, checked as it is walked (docs/ARCHIVES.md): each passed is an error
// of the archive's (too_many_members, archive_too_large, ratio_exceeded) that ends the walk. The
// defaults bound nothing but what no archive of recordings needs.
struct archive_limits {
    // Entries of any kind.
    std::uint64_t max_members = 10'000'000;
    // Bytes inflated (or read through) from the archive's members, all together.
    std::uint64_t max_inflated_bytes = UINT64_MAX;
    // A member inflated to more than this many times its compressed bytes (for a compressed tar,
    // the stream so far); deflate reaches 1032 at most.
    std::uint64_t max_ratio = 1024;
};
// The budgets recommended for uploads from strangers (serve): 10,000 members, 256 MiB inflated,
// a ratio of 100.
constexpr archive_limits upload_archive_limits() noexcept {
    archive_limits l;
    l.max_members = 10'000;
    l.max_inflated_bytes = std::uint64_t{256} << 20;
    l.max_ratio = 100;
    return l;
}

// Whether the content of `in` is an archive this reads: a zip (a local file header or the end
// record of an empty zip first) or a tar (a ustar header first, plain, or compressed by gzip,
// bzip2, xz or zstd). Reads its first bytes (inflating the first ones of a compressed one) with
// pread for a regular file; a stream is not sniffed (false). `ec` when they could not be read.
std::optional<archive_format> archive_format_of(const input& in, std::error_code& ec) noexcept;

class archive_reader {
  public:
    archive_reader() noexcept;
    ~archive_reader();
    archive_reader(archive_reader&&) noexcept;
    archive_reader& operator=(archive_reader&&) noexcept;
    archive_reader(const archive_reader&) = delete;
    archive_reader& operator=(const archive_reader&) = delete;

    // Opens `in` as an archive, walked from its first member; `in` must outlive the reader (a
    // regular file is mapped for the members read in place). A zip must be a regular file (its
    // central directory is at its end). `ec`: invalid_argument when it is no archive this reads
    // (archive_format_of), or what reading it failed with.
    static archive_reader open(input& in, const archive_limits& limits,
                               std::error_code& ec) noexcept;

    archive_format format() const noexcept;
    // The next member's header into `m`; false at the archive's end, or when the walk ended early
    // (fault()).
    bool next(archive_member& m) noexcept;
    // The member next() gave last.
    const archive_member& current() const noexcept;
    // The damage or budget that ended the walk early, of no member's (a header, the count of
    // members): an errc of the archive's (is_archive_fault), its offset the archive's; io_error
    // when the archive could not be read. A member's own damage that ends the walk (the archive
    // cut short in its bytes, a budget its reading passed) is its member_fault(), and next() then
    // gives no more. False otherwise.
    const error& fault() const noexcept;
    // Why the current member cannot be read (an errc of the archive's, at a byte of the archive):
    // known from its headers (encrypted, compressed by a method other than stored and deflate, a
    // zip local header that disagrees with the directory, bytes past the archive's end or
    // overlapping another member's) or found while reading it (damage, a budget); none when it
    // can.
    const error& member_fault() const noexcept;
    // The current member (a file) as an input: a part of the archive's mapping when its bytes are
    // stored as they are, else a stream of this reader that inflates them as they are read,
    // valid until next(). A member the archive holds damaged or past a budget is a stream that
    // fails (`ec` of its reads: an errc of the archive's, fault() then says where). `ec` when it
    // is not a file, or the input cannot be made.
    input member(std::error_code& ec) noexcept;
    // The current member's bytes in the archive's mapping, when it is a file the archive holds as
    // it is and nothing is known wrong with it; empty otherwise. Read them under guarded().
    std::span<const std::byte> member_bytes() const noexcept;

    class impl;

  private:
    std::unique_ptr<impl> impl_;
};

// What validate_input says of the same bytes as a loose file, for the current member of `reader`
// (a file): read in place when the archive holds it as it is; else read through into `buffer`
// (kept by the caller from member to member) when it is at most whole_member_bytes, and validated
// there as a mapped file is (a .bin.gz member as a .bin.gz file is, inflated as it is checked),
// or, larger, checked as it is inflated, as a stream is. On return `buffer` holds exactly the
// member's bytes when they were read through whole into it, and is empty otherwise. Its report's
// error is the member's own, or the archive's damage or budget that stopped its reading
// (member_fault: code and the archive's offset). `io` when the archive could not be read.
file_check validate_member(archive_reader& reader, const validate_options& options,
                           std::vector<std::byte>& buffer) noexcept;
file_check validate_member(archive_reader& reader, const validate_options& options) noexcept;
// Whether the current member of `reader`, whose check was `c`, is given a verdict as a recording:
// sorted from the archive's other files as a folder's are (found_recording), or its reading
// stopped by the archive's own damage (member_fault), which its verdict then places. The CLI, the
// index and the server report the same members.
bool reported_member(const archive_reader& reader, const file_check& c) noexcept;
// The largest member read through that validate_member holds whole: 64 MiB.
inline constexpr std::uint64_t whole_member_bytes = std::uint64_t{64} << 20;

// The last member of `archive` named `member` (a folder also by its name without the final '/'),
// found in one walk of its headers (a zip's directory) under `limits`: nothing when it holds none
// up to where that walk ended (`stopped`: the reader's fault(), false when it read them all).
// `ec` as archive_reader::open's, or not_enough_memory.
std::optional<archive_member> find_member(input& archive, std::string_view member,
                                          const archive_limits& limits, error& stopped,
                                          std::error_code& ec) noexcept;

// The member `member` of the archive file `archive` (the last of that name), as
// input::open("ARCHIVE/MEMBER") opens it: after one walk of the archive's headers (a zip's
// directory); read in place when the archive holds it as it is, else a stream that inflates it.
// `ec` as input::open's for such a name.
input open_member(const std::string& archive, std::string_view member,
                  std::error_code& ec) noexcept;

// A member the archive holds as it is, opened where a walk found it (an index row's
// member_offset and member_size) with no walk: bytes [offset, offset + size) of the plain tar or
// zip `archive`, a part of its mapping. The header before them must be that member's: a tar's
// (its checksum sound, a regular file of `size` bytes) or a zip's local header (named `member`,
// stored, of `size` bytes), so that a row of another version of the archive is refused rather
// than read as a recording. `ec`: member_past_end when the bytes lie past the archive's end,
// header_mismatch when the header is not that member's (errc of the library's category),
// not_a_directory when `archive` is no plain tar nor zip, or what reading failed with.
input open_member_at(const std::string& archive, std::string_view member, std::uint64_t offset,
                     std::uint64_t size, std::error_code& ec) noexcept;

// A name that leads through an archive, ARCHIVE/MEMBER: `archive` the longest prefix of `name`,
// ending before a '/', that is an existing regular file, and `member` what follows that '/'
// verbatim (a regular file cannot be a folder, so such a name never shadows a real file). Nothing
// when `name` itself exists or no such prefix does.
struct member_path {
    std::string archive;
    std::string member;
};
std::optional<member_path> split_member_path(std::string_view name) noexcept;

}  // namespace inputanim
