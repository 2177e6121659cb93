// The sources of the Python package's recordings: an input opened by name, as a member of an
// archive or from Python's bytes, loaded whole (loaded_recording) and read without the GIL under
// the mapping's guard.
#pragma once

#include <pybind11/pybind11.h>

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <system_error>

#include "inputanim/input.hpp"
#include "inputanim/loaded.hpp"

namespace inputanim::python {

namespace py = pybind11;

// An input that could not be read: becomes OSError(errno, strerror, path).
struct os_failure {
    std::error_code code;
    std::string path;
};

// An input opened for a Recording, not read yet, and the name its errors give.
struct opened {
    input in;
    std::string path;
    // Opened by name (not bytes from Python).
    bool named = false;
};

// The bytes a Recording reads, as loaded (the input's mapping, or a copy in memory), and the
// recording walked over them.
struct source {
    loaded_recording loaded;
    bool named = false;
    std::string path;

    // The bytes are a mapping of the named file (not a private copy).
    bool shared() const { return named && loaded.mapped(); }
};

// Reads a whole recording from an opened input through the front door (loaded_recording::load):
// a plain file stays mapped, unless `copy`; gzip and streams are read (inflated) into memory.
// Returns the structural error that stopped the read, if any. Throws os_failure.
error load_whole(source& s, input in, layout_choice layout, bool copy);

// A name as input::open takes it (a path, or - for standard input). Throws os_failure.
opened open_name(const std::string& name);

// The member `member` of the archive `name`: by its name after a walk of the headers, or, given
// `offset` and `size` (an index row's), where they say with no walk. Throws os_failure; a row the
// archive no longer matches is an error of the library's category in os_failure.
opened open_member_source(const std::string& name, const std::string& member,
                          std::optional<std::uint64_t> offset, std::optional<std::uint64_t> size);

// Bytes from Python (bytes, bytearray, memoryview, a numpy array), opened by the front door as
// any file is (input::from_bytes), so that gzip is recognised and inflated the one way. Throws
// os_failure.
opened open_bytes(std::span<const std::byte> bytes);

// The bytes of a Python buffer; `info` must outlive the span.
std::span<const std::byte> buffer_bytes(const py::buffer_info& info);

// Runs `f` (which reads the source's bytes) without the GIL; a page of the mapping that vanished
// meanwhile is an OSError instead of a SIGBUS. `f` must not allocate (guard.hpp).
template <class F>
void read_without_gil(const source& s, F&& f) {
    std::error_code ec;
    {
        py::gil_scoped_release release;
        ec = s.loaded.run(f);
    }
    if (ec) throw os_failure{ec, s.path};
}

}  // namespace inputanim::python
