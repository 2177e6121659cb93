// Archives for the tests of the archive reader and the commands that read archives: made with
// libarchive's writer (every tar format and filter it writes, zip stored or deflated), and zips
// put together byte by byte where a test needs a field libarchive would not write (data
// descriptors, ZIP64 records, headers that disagree, entries that overlap).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "support/builders.hpp"

namespace inputanim::testing {

struct archive_entry_spec {
    archive_entry_spec(std::string n, bytes c = {}, std::string k = "file", std::string l = "")
        : name(std::move(n)), content(std::move(c)), kind(std::move(k)), link(std::move(l)) {}
    std::string name;
    bytes content;
    // "file", "directory", "symlink" (to `link`), "hardlink" (to `link`), "fifo".
    std::string kind;
    std::string link;
};

// A tar in `format` ("ustar", "pax", "gnutar") compressed by `filter` ("none", "gzip", "bzip2",
// "xz", "zstd"), or a zip ("zip") whose files are stored or, with `deflate`, deflated; written by
// libarchive.
bytes make_archive(const std::vector<archive_entry_spec>& entries, std::string_view format,
                   std::string_view filter = "none", bool deflate = false);

// A zip written byte by byte: each entry stored (or deflated with zlib), with a data descriptor
// after its bytes when `descriptors`, with ZIP64 sizes and offsets in extra fields when `zip64`
// (and a ZIP64 end record), and its central entry named `central_names[i]` instead when given.
struct zip_entry_spec {
    std::string name;
    bytes content;
    bool deflate = false;
};
struct hand_zip {
    bytes file;
    // Where each entry's local header and data start.
    std::vector<std::uint64_t> local;
    std::vector<std::uint64_t> data;
    // Where the central directory starts.
    std::uint64_t directory = 0;
};
hand_zip make_zip(const std::vector<zip_entry_spec>& entries, bool descriptors = false,
                  bool zip64 = false);

// Little-endian stores into a built archive, for the tests that damage one.
void put_u16(bytes& b, std::uint64_t at, std::uint16_t v);
void put_u32(bytes& b, std::uint64_t at, std::uint32_t v);

}  // namespace inputanim::testing
