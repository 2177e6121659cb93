#include "source.hpp"

#include <utility>

#include "inputanim/archive.hpp"

namespace inputanim::python {

// Reads a whole recording from an opened input through the front door (loaded_recording::load):
// a plain file stays mapped, unless `copy`; gzip and streams are read (inflated) into memory.
// Returns the structural error that stopped the read, if any. Throws os_failure.
error load_whole(source& s, input in, layout_choice layout, bool copy) {
    {
        py::gil_scoped_release release;
        s.loaded.load(std::move(in), validate_options{level::structure, layout, {}});
    }
    const whole_input& w = s.loaded.whole();
    if (w.io) throw os_failure{w.io, s.path};
    if (w.invalid) return w.invalid;
    if (!copy) return {};
    // The copy is read from the file, not through the mapping (whose pages would stay in memory
    // beside the copy); a file truncated meanwhile is an I/O error.
    std::error_code ec;
    {
        py::gil_scoped_release release;
        ec = s.loaded.copy();
    }
    if (ec == std::errc::not_enough_memory) throw std::bad_alloc();
    if (ec) throw os_failure{ec, s.path};
    return {};
}

// A name as input::open takes it (a path, or - for standard input). Throws os_failure.
opened open_name(const std::string& name) {
    opened o;
    o.path = name;
    o.named = true;
    std::error_code ec;
    o.in = input::open(name, ec);
    if (ec) throw os_failure{ec, name};
    return o;
}

// The member `member` of the archive `name`: by its name after a walk of the headers, or, given
// `offset` and `size` (an index row's), where they say with no walk. Throws os_failure; a row the
// archive no longer matches is an error of the library's category in os_failure.
opened open_member_source(const std::string& name, const std::string& member,
                          std::optional<std::uint64_t> offset, std::optional<std::uint64_t> size) {
    opened o;
    o.path = name + "/" + member;
    o.named = true;
    std::error_code ec;
    {
        py::gil_scoped_release release;
        o.in = offset ? open_member_at(name, member, *offset, size.value_or(0), ec)
                      : open_member(name, member, ec);
    }
    if (ec) throw os_failure{ec, o.path};
    return o;
}

// Bytes from Python (bytes, bytearray, memoryview, a numpy array), opened by the front door as
// any file is (input::from_bytes), so that gzip is recognised and inflated the one way. Throws
// os_failure.
opened open_bytes(std::span<const std::byte> bytes) {
    opened o;
    o.path = "-";
    std::error_code ec;
    {
        py::gil_scoped_release release;
        o.in = input::from_bytes(bytes, ec);
    }
    if (ec) throw os_failure{ec, o.path};
    return o;
}

// The bytes of a Python buffer; `info` must outlive the span.
std::span<const std::byte> buffer_bytes(const py::buffer_info& info) {
    if (info.itemsize != 1 || info.ndim != 1 || info.strides[0] != 1) {
        throw py::value_error("expected contiguous bytes");
    }
    return {static_cast<const std::byte*>(info.ptr),
            static_cast<std::size_t>(info.size * info.itemsize)};
}

}  // namespace inputanim::python
