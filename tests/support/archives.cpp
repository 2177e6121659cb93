#include "support/archives.hpp"

#include <archive.h>
#include <archive_entry.h>
#include <zlib.h>

#include <stdexcept>

namespace inputanim::testing {

namespace {

la_ssize_t append(archive*, void* data, const void* buffer, size_t length) {
    auto* out = static_cast<bytes*>(data);
    const auto* p = static_cast<const std::byte*>(buffer);
    out->insert(out->end(), p, p + length);
    return static_cast<la_ssize_t>(length);
}

void check(int r, archive* a) {
    if (r < ARCHIVE_WARN) throw std::runtime_error(archive_error_string(a));
}

bytes deflated(const bytes& content) {
    z_stream z{};
    deflateInit2(&z, 6, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
    bytes out(deflateBound(&z, content.size()) + 16);
    z.next_in = const_cast<Bytef*>(reinterpret_cast<const Bytef*>(content.data()));
    z.avail_in = static_cast<uInt>(content.size());
    z.next_out = reinterpret_cast<Bytef*>(out.data());
    z.avail_out = static_cast<uInt>(out.size());
    deflate(&z, Z_FINISH);
    out.erase(out.end() - static_cast<std::ptrdiff_t>(z.avail_out), out.end());
    deflateEnd(&z);
    return out;
}

void add16(bytes& b, std::uint16_t v) {
    for (int i = 0; i < 2; ++i) b.push_back(static_cast<std::byte>((v >> (8 * i)) & 0xff));
}
void add32(bytes& b, std::uint32_t v) {
    for (int i = 0; i < 4; ++i) b.push_back(static_cast<std::byte>((v >> (8 * i)) & 0xff));
}
void add64(bytes& b, std::uint64_t v) {
    for (int i = 0; i < 8; ++i) b.push_back(static_cast<std::byte>((v >> (8 * i)) & 0xff));
}
void add(bytes& b, std::string_view s) {
    for (const char c : s) b.push_back(static_cast<std::byte>(c));
}

}  // namespace

bytes make_archive(const std::vector<archive_entry_spec>& entries, std::string_view format,
                   std::string_view filter, bool deflate) {
    bytes out;
    archive* a = archive_write_new();
    if (format == "zip") {
        check(archive_write_set_format_zip(a), a);
        check(archive_write_set_options(
                  a, deflate ? "zip:compression=deflate" : "zip:compression=store"),
              a);
    } else {
        check(archive_write_set_format_by_name(a, std::string(format).c_str()), a);
    }
    if (filter != "none")
        check(archive_write_add_filter_by_name(a, std::string(filter).c_str()), a);
    // No padding to a 10 KiB block: the archive ends after its last record.
    archive_write_set_bytes_in_last_block(a, 1);
    check(archive_write_open(a, &out, nullptr, append, nullptr), a);
    for (const archive_entry_spec& e : entries) {
        archive_entry* entry = archive_entry_new();
        archive_entry_set_pathname(entry, e.name.c_str());
        archive_entry_set_perm(entry, 0644);
        archive_entry_set_mtime(entry, 1700000000, 0);
        if (e.kind == "directory") {
            archive_entry_set_filetype(entry, AE_IFDIR);
        } else if (e.kind == "symlink") {
            archive_entry_set_filetype(entry, AE_IFLNK);
            archive_entry_set_symlink(entry, e.link.c_str());
        } else if (e.kind == "hardlink") {
            archive_entry_set_filetype(entry, AE_IFREG);
            archive_entry_set_hardlink(entry, e.link.c_str());
        } else if (e.kind == "fifo") {
            archive_entry_set_filetype(entry, AE_IFIFO);
        } else {
            archive_entry_set_filetype(entry, AE_IFREG);
            archive_entry_set_size(entry, static_cast<la_int64_t>(e.content.size()));
        }
        check(archive_write_header(a, entry), a);
        if (e.kind == "file" && !e.content.empty()) {
            archive_write_data(a, e.content.data(), e.content.size());
        }
        archive_entry_free(entry);
    }
    check(archive_write_close(a), a);
    archive_write_free(a);
    return out;
}

hand_zip make_zip(const std::vector<zip_entry_spec>& entries, bool descriptors, bool zip64) {
    hand_zip z;
    struct written {
        std::uint32_t crc;
        std::uint64_t compressed;
        std::uint64_t size;
        bool deflate;
    };
    std::vector<written> info;
    for (const zip_entry_spec& e : entries) {
        const bytes body = e.deflate ? deflated(e.content) : e.content;
        const auto crc =
            static_cast<std::uint32_t>(crc32(0, reinterpret_cast<const Bytef*>(e.content.data()),
                                             static_cast<uInt>(e.content.size())));
        z.local.push_back(z.file.size());
        add32(z.file, 0x04034b50);
        add16(z.file, zip64 ? 45 : 20);
        add16(z.file, descriptors ? 8 : 0);
        add16(z.file, e.deflate ? 8 : 0);
        add32(z.file, 0);  // time, date
        add32(z.file, descriptors ? 0 : crc);
        add32(z.file, descriptors ? 0
                      : zip64     ? 0xffffffffu
                                  : static_cast<std::uint32_t>(body.size()));
        add32(z.file, descriptors ? 0
                      : zip64     ? 0xffffffffu
                                  : static_cast<std::uint32_t>(e.content.size()));
        add16(z.file, static_cast<std::uint16_t>(e.name.size()));
        add16(z.file, zip64 ? 20 : 0);
        add(z.file, e.name);
        if (zip64) {
            add16(z.file, 1);
            add16(z.file, 16);
            add64(z.file, descriptors ? 0 : e.content.size());
            add64(z.file, descriptors ? 0 : body.size());
        }
        z.data.push_back(z.file.size());
        z.file.insert(z.file.end(), body.begin(), body.end());
        if (descriptors) {
            add32(z.file, 0x08074b50);
            add32(z.file, crc);
            if (zip64) {
                add64(z.file, body.size());
                add64(z.file, e.content.size());
            } else {
                add32(z.file, static_cast<std::uint32_t>(body.size()));
                add32(z.file, static_cast<std::uint32_t>(e.content.size()));
            }
        }
        info.push_back({crc, body.size(), e.content.size(), e.deflate});
    }
    z.directory = z.file.size();
    for (std::size_t i = 0; i < entries.size(); ++i) {
        add32(z.file, 0x02014b50);
        add16(z.file, (3 << 8) | 45);
        add16(z.file, zip64 ? 45 : 20);
        add16(z.file, descriptors ? 8 : 0);
        add16(z.file, info[i].deflate ? 8 : 0);
        add32(z.file, 0);
        add32(z.file, info[i].crc);
        add32(z.file, zip64 ? 0xffffffffu : static_cast<std::uint32_t>(info[i].compressed));
        add32(z.file, zip64 ? 0xffffffffu : static_cast<std::uint32_t>(info[i].size));
        add16(z.file, static_cast<std::uint16_t>(entries[i].name.size()));
        add16(z.file, zip64 ? 28 : 0);
        add16(z.file, 0);  // comment
        add16(z.file, 0);  // disk
        add16(z.file, 0);  // internal attributes
        add32(z.file, 0100644u << 16);
        add32(z.file, zip64 ? 0xffffffffu : static_cast<std::uint32_t>(z.local[i]));
        add(z.file, entries[i].name);
        if (zip64) {
            add16(z.file, 1);
            add16(z.file, 24);
            add64(z.file, info[i].size);
            add64(z.file, info[i].compressed);
            add64(z.file, z.local[i]);
        }
    }
    const std::uint64_t directory_size = z.file.size() - z.directory;
    if (zip64) {
        const std::uint64_t end64 = z.file.size();
        add32(z.file, 0x06064b50);
        add64(z.file, 44);
        add16(z.file, 45);
        add16(z.file, 45);
        add32(z.file, 0);
        add32(z.file, 0);
        add64(z.file, entries.size());
        add64(z.file, entries.size());
        add64(z.file, directory_size);
        add64(z.file, z.directory);
        add32(z.file, 0x07064b50);
        add32(z.file, 0);
        add64(z.file, end64);
        add32(z.file, 1);
    }
    add32(z.file, 0x06054b50);
    add16(z.file, 0);
    add16(z.file, 0);
    add16(z.file, zip64 ? 0xffff : static_cast<std::uint16_t>(entries.size()));
    add16(z.file, zip64 ? 0xffff : static_cast<std::uint16_t>(entries.size()));
    add32(z.file, zip64 ? 0xffffffffu : static_cast<std::uint32_t>(directory_size));
    add32(z.file, zip64 ? 0xffffffffu : static_cast<std::uint32_t>(z.directory));
    add16(z.file, 0);
    return z;
}

void put_u16(bytes& b, std::uint64_t at, std::uint16_t v) {
    for (int i = 0; i < 2; ++i) b[at + i] = static_cast<std::byte>((v >> (8 * i)) & 0xff);
}

void put_u32(bytes& b, std::uint64_t at, std::uint32_t v) {
    for (int i = 0; i < 4; ++i) b[at + i] = static_cast<std::byte>((v >> (8 * i)) & 0xff);
}

}  // namespace inputanim::testing
