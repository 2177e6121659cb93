// Archives for the seeds of the archive harness, put together byte by byte so that the seeds are
// the same bytes on every machine and with every library version (no compressor's choices): tar
// headers (ustar, pax, GNU long names) and zip records (stored, deflate, data descriptors, ZIP64)
// as the formats define them; gzip and deflate as stored blocks, and a fixed-Huffman deflate run
// of copies for a member whose compression ratio passes the upload budget.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace inputanim::fuzz::archives {

using bytes = std::vector<std::byte>;

inline void append(bytes& b, std::string_view text) {
    for (const char c : text) b.push_back(static_cast<std::byte>(c));
}
inline void append(bytes& b, const bytes& more) {
    b.insert(b.end(), more.begin(), more.end());
}
inline void put_le(bytes& b, std::uint64_t v, int width) {
    for (int i = 0; i < width; ++i) b.push_back(static_cast<std::byte>((v >> (8 * i)) & 0xff));
}

inline std::uint32_t crc32(const bytes& b) {
    std::uint32_t crc = 0xffffffffu;
    for (const std::byte x : b) {
        crc ^= std::to_integer<std::uint32_t>(x);
        for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1u)));
    }
    return ~crc;
}

// --- tar ----------------------------------------------------------------------------------------

// One 512-byte header: `type` '0' file, '5' directory, '2' symlink, '1' hard link, '6' FIFO, 'x'
// pax extended header, 'L' GNU long name. `size` is written as it is given (a lie included).
inline bytes tar_header(std::string_view name, std::uint64_t size, char type,
                        std::string_view link = {}) {
    bytes h(512, std::byte{0});
    const auto field = [&](std::size_t at, std::size_t length, std::string_view text) {
        for (std::size_t i = 0; i < text.size() && i < length; ++i) {
            h[at + i] = static_cast<std::byte>(text[i]);
        }
    };
    const auto octal = [&](std::size_t at, std::size_t length, std::uint64_t v) {
        std::string digits(length - 1, '0');
        for (std::size_t i = length - 1; i-- > 0; v >>= 3)
            digits[i] = static_cast<char>('0' + (v & 7));
        field(at, length, digits);
    };
    field(0, 100, name);
    octal(100, 8, 0644);
    octal(108, 8, 0);
    octal(116, 8, 0);
    octal(124, 12, size);
    octal(136, 12, 0);
    field(148, 8, "        ");
    h[156] = static_cast<std::byte>(type);
    field(157, 100, link);
    field(257, 6, std::string_view("ustar\0", 6));
    field(263, 2, "00");
    std::uint32_t sum = 0;
    for (const std::byte x : h) sum += std::to_integer<std::uint32_t>(x);
    std::string check(6, '0');
    for (std::size_t i = 6; i-- > 0; sum >>= 3) check[i] = static_cast<char>('0' + (sum & 7));
    field(148, 6, check);
    h[154] = std::byte{0};
    h[155] = std::byte{' '};
    return h;
}

inline void pad_block(bytes& b) {
    while (b.size() % 512 != 0) b.push_back(std::byte{0});
}

struct tar_entry {
    tar_entry(std::string n, bytes c = {}, char t = '0', std::string l = "", char ln = 'x')
        : name(std::move(n)), content(std::move(c)), type(t), link(std::move(l)), long_name(ln) {}
    std::string name;
    bytes content;
    char type = '0';
    std::string link;
    // How the name is written when it does not fit the header: 'x' (pax) or 'L' (GNU).
    char long_name = 'x';
};

// A pax record "LEN key=value\n", LEN counting itself.
inline std::string pax_record(std::string_view key, std::string_view value) {
    const std::size_t rest = key.size() + value.size() + 3;
    std::size_t length = rest + 1;
    while (std::to_string(length).size() + rest != length) ++length;
    return std::to_string(length) + " " + std::string(key) + "=" + std::string(value) + "\n";
}

inline bytes tar(const std::vector<tar_entry>& entries, bool end = true) {
    bytes b;
    for (const tar_entry& e : entries) {
        std::string name = e.name;
        if (name.size() > 99) {
            bytes extra;
            if (e.long_name == 'x') {
                append(extra, pax_record("path", name));
                append(b, tar_header("PaxHeader", extra.size(), 'x'));
            } else {
                append(extra, name);
                extra.push_back(std::byte{0});
                append(b, tar_header("././@LongLink", extra.size(), 'L'));
            }
            append(b, extra);
            pad_block(b);
            name = name.substr(0, 99);
        }
        append(b, tar_header(name, e.content.size(), e.type, e.link));
        append(b, e.content);
        pad_block(b);
    }
    if (end) b.resize(b.size() + 1024, std::byte{0});
    return b;
}

// --- deflate and gzip ---------------------------------------------------------------------------

// Deflate as stored blocks (BTYPE 00) of at most 65,535 bytes.
inline bytes deflate_stored(const bytes& data) {
    bytes out;
    std::size_t at = 0;
    do {
        const std::size_t n = std::min<std::size_t>(65535, data.size() - at);
        out.push_back(std::byte{at + n == data.size() ? std::uint8_t{1} : std::uint8_t{0}});
        put_le(out, n, 2);
        put_le(out, ~n & 0xffff, 2);
        out.insert(out.end(), data.begin() + static_cast<long>(at),
                   data.begin() + static_cast<long>(at + n));
        at += n;
    } while (at < data.size());
    return out;
}

// One fixed-Huffman block: a literal 0, then `copies` copies of 258 bytes at distance 1: 1 +
// 258 * copies zeros from about 1.6 bits a byte.
inline bytes deflate_zeros(std::size_t copies) {
    bytes out;
    std::uint32_t bits = 0;
    int count = 0;
    const auto put = [&](std::uint32_t v, int n) {
        bits |= v << count;
        count += n;
        while (count >= 8) {
            out.push_back(static_cast<std::byte>(bits & 0xff));
            bits >>= 8;
            count -= 8;
        }
    };
    // Huffman codes go most significant bit first.
    const auto code = [&](std::uint32_t v, int n) {
        std::uint32_t r = 0;
        for (int i = 0; i < n; ++i) r |= ((v >> i) & 1u) << (n - 1 - i);
        put(r, n);
    };
    put(1, 1);      // BFINAL
    put(1, 2);      // BTYPE 01: fixed Huffman
    code(0x30, 8);  // literal 0
    for (std::size_t i = 0; i < copies; ++i) {
        code(0xc5, 8);  // length 258 (code 285)
        code(0, 5);     // distance 1
    }
    code(0, 7);  // end of block (256)
    if (count > 0) out.push_back(static_cast<std::byte>(bits & 0xff));
    return out;
}

inline bytes gzip_stored(const bytes& data) {
    bytes out;
    append(out, std::string_view("\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff", 10));
    append(out, deflate_stored(data));
    put_le(out, crc32(data), 4);
    put_le(out, data.size() & 0xffffffffu, 4);
    return out;
}

// --- zip ----------------------------------------------------------------------------------------

struct zip_entry {
    zip_entry(std::string n, bytes c = {}, bool d = false, bytes r = {}, std::string central = "")
        : name(std::move(n)),
          content(std::move(c)),
          deflate(d),
          raw(std::move(r)),
          central_name(std::move(central)) {}
    std::string name;
    bytes content;
    // Method 8 with stored blocks (or `raw` when given), else 0.
    bool deflate = false;
    bytes raw;
    // The central directory's name, when it differs from the local header's.
    std::string central_name;
};

struct zip_options {
    bool descriptors = false;
    bool zip64 = false;
    // Every central entry points at the first local header (overlapping entries).
    bool overlap = false;
};

inline bytes zip(const std::vector<zip_entry>& entries, zip_options o = {}) {
    bytes b;
    std::vector<std::uint64_t> local;
    std::vector<bytes> data;
    for (const zip_entry& e : entries) {
        data.push_back(!e.raw.empty() ? e.raw : e.deflate ? deflate_stored(e.content) : e.content);
    }
    const auto sizes_extra = [&](std::size_t i, bool with_offset) {
        bytes x;
        put_le(x, 1, 2);
        put_le(x, with_offset ? 24 : 16, 2);
        put_le(x, entries[i].content.size(), 8);
        put_le(x, data[i].size(), 8);
        if (with_offset) put_le(x, local[i], 8);
        return x;
    };
    for (std::size_t i = 0; i < entries.size(); ++i) {
        const zip_entry& e = entries[i];
        local.push_back(b.size());
        put_le(b, 0x04034b50, 4);
        put_le(b, o.zip64 ? 45 : 20, 2);
        put_le(b, o.descriptors ? 8 : 0, 2);
        put_le(b, e.deflate ? 8 : 0, 2);
        put_le(b, 0, 4);
        const bool sizes_here = !o.descriptors;
        put_le(b, sizes_here ? crc32(e.content) : 0, 4);
        put_le(b, !sizes_here ? 0 : o.zip64 ? 0xffffffffu : data[i].size(), 4);
        put_le(b, !sizes_here ? 0 : o.zip64 ? 0xffffffffu : e.content.size(), 4);
        put_le(b, e.name.size(), 2);
        const bytes extra = o.zip64 && sizes_here ? sizes_extra(i, false) : bytes{};
        put_le(b, extra.size(), 2);
        append(b, e.name);
        append(b, extra);
        append(b, data[i]);
        if (o.descriptors) {
            put_le(b, 0x08074b50, 4);
            put_le(b, crc32(e.content), 4);
            put_le(b, data[i].size(), o.zip64 ? 8 : 4);
            put_le(b, e.content.size(), o.zip64 ? 8 : 4);
        }
    }
    const std::uint64_t directory = b.size();
    for (std::size_t i = 0; i < entries.size(); ++i) {
        const zip_entry& e = entries[i];
        const std::string& name = e.central_name.empty() ? e.name : e.central_name;
        put_le(b, 0x02014b50, 4);
        put_le(b, 0x031e, 2);
        put_le(b, o.zip64 ? 45 : 20, 2);
        put_le(b, o.descriptors ? 8 : 0, 2);
        put_le(b, e.deflate ? 8 : 0, 2);
        put_le(b, 0, 4);
        put_le(b, crc32(e.content), 4);
        put_le(b, o.zip64 ? 0xffffffffu : data[i].size(), 4);
        put_le(b, o.zip64 ? 0xffffffffu : e.content.size(), 4);
        put_le(b, name.size(), 2);
        const bytes extra = o.zip64 ? sizes_extra(i, true) : bytes{};
        put_le(b, extra.size(), 2);
        put_le(b, 0, 2);
        put_le(b, 0, 2);
        put_le(b, 0, 2);
        put_le(b, 0100644u << 16, 4);
        put_le(b, o.zip64 ? 0xffffffffu : o.overlap ? local[0] : local[i], 4);
        append(b, name);
        append(b, extra);
    }
    const std::uint64_t directory_size = b.size() - directory;
    if (o.zip64) {
        const std::uint64_t end64 = b.size();
        put_le(b, 0x06064b50, 4);
        put_le(b, 44, 8);
        put_le(b, 45, 2);
        put_le(b, 45, 2);
        put_le(b, 0, 4);
        put_le(b, 0, 4);
        put_le(b, entries.size(), 8);
        put_le(b, entries.size(), 8);
        put_le(b, directory_size, 8);
        put_le(b, directory, 8);
        put_le(b, 0x07064b50, 4);
        put_le(b, 0, 4);
        put_le(b, end64, 8);
        put_le(b, 1, 4);
    }
    put_le(b, 0x06054b50, 4);
    put_le(b, 0, 2);
    put_le(b, 0, 2);
    put_le(b, o.zip64 ? 0xffff : entries.size(), 2);
    put_le(b, o.zip64 ? 0xffff : entries.size(), 2);
    put_le(b, o.zip64 ? 0xffffffffu : directory_size, 4);
    put_le(b, o.zip64 ? 0xffffffffu : directory, 4);
    put_le(b, 0, 2);
    return b;
}

}  // namespace inputanim::fuzz::archives
