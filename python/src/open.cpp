// open(): a recording opened by name, as a member of an archive or from Python's bytes, into a
// Recording when its structure is valid; and an archive's members listed.
#include <pybind11/stl.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <system_error>
#include <utility>

#include "bind.hpp"
#include "inputanim/archive.hpp"
#include "inputanim/error.hpp"
#include "inputanim/format.hpp"
#include "inputanim/input.hpp"
#include "inputanim/reader.hpp"
#include "recording.hpp"
#include "source.hpp"
#include "values.hpp"

namespace inputanim::python {

namespace {

// (Recording, None) for a structurally valid input, else (None, the error as validate reports
// it). A mapped file's structure is read by reads of the file first (`by_reads`): opening then
// touches no page of the mapping, whose first touches cost far more than the reads
// (docs/PERFORMANCE.md); the walk over the mapping gives the verdict when that does not succeed.
py::tuple open_source(opened o, bool copy, const std::string& layout_name, bool by_reads) {
    const layout_choice layout = layout_named(layout_name);
    auto src = std::make_shared<source>();
    src->named = o.named;
    src->path = std::move(o.path);
    error e = load_whole(*src, std::move(o.in), layout, copy);
    if (e) return py::make_tuple(py::none(), error_dict(e));
    std::error_code io;
    {
        py::gil_scoped_release release;
        e = src->loaded.open(read_options{layout, {}}, by_reads, io);
    }
    if (io) throw os_failure{io, src->path};
    if (e) return py::make_tuple(py::none(), error_dict(e));
    return py::make_tuple(open_recording(std::move(src)), py::none());
}

py::tuple open_path(const py::bytes& path, bool copy, const std::string& layout_name,
                    bool by_reads) {
    return open_source(open_name(path_of(path)), copy, layout_name, by_reads);
}

// open() of a member of an archive (open_member_source). An archive that no longer holds the
// member where a row says is (None, the error) as for a recording whose structure fails.
py::tuple open_archive_member(const py::bytes& path, const py::bytes& member,
                              std::optional<std::uint64_t> offset,
                              std::optional<std::uint64_t> size, bool copy,
                              const std::string& layout_name) {
    opened s;
    try {
        s = open_member_source(path_of(path), path_of(member), offset, size);
    } catch (const os_failure& f) {
        if (f.code.category() != error_category()) throw;
        error e;
        e.code = static_cast<errc>(f.code.value());
        e.offset = offset.value_or(0);
        return py::make_tuple(py::none(), error_dict(e));
    }
    return open_source(std::move(s), copy, layout_name, false);
}

// The entries of an archive as dicts: name (bytes), ordinal, kind, size, offset (None unless its
// bytes are stored as they are), method, encrypted; and the fault that stopped the walk (an
// error dict), or None.
py::tuple archive_members(const py::bytes& path) {
    const std::string name = path_of(path);
    std::error_code ec;
    input in = input::open(name, ec);
    if (ec) throw os_failure{ec, name};
    archive_reader reader = archive_reader::open(in, archive_limits{}, ec);
    if (ec == std::errc::invalid_argument)
        throw os_failure{std::make_error_code(std::errc::not_a_directory), name};
    if (ec) throw os_failure{ec, name};
    py::list members;
    archive_member m;
    for (;;) {
        bool more = false;
        {
            py::gil_scoped_release release;
            more = reader.next(m);
        }
        if (!more) break;
        py::dict d;
        d["name"] = py::bytes(m.name);
        d["ordinal"] = m.ordinal;
        d["kind"] = text(member_kind_name(m.kind));
        d["size"] = m.size;
        d["offset"] = m.data_offset ? py::object(py::int_(*m.data_offset)) : py::none();
        d["method"] = text(m.method);
        d["encrypted"] = m.encrypted;
        members.append(d);
    }
    const error& fault = reader.fault();
    if (fault.code == errc::io_error)
        throw os_failure{std::make_error_code(std::errc::io_error), name};
    return py::make_tuple(members, fault ? py::object(error_dict(fault)) : py::none());
}

py::tuple open_buffer(const py::buffer& data, const std::string& layout_name) {
    opened s;
    {
        const py::buffer_info info = data.request();
        s = open_bytes(buffer_bytes(info));
    }
    // The memory file is already a private copy.
    return open_source(std::move(s), false, layout_name, true);
}

}  // namespace

void bind_open(py::module_& m) {
    m.def("open", &open_path, py::arg("path"), py::arg("copy"), py::arg("layout"),
          py::arg("by_reads") = true);
    m.def("open_buffer", &open_buffer, py::arg("data"), py::arg("layout"));
    m.def("open_member", &open_archive_member, py::arg("path"), py::arg("member"),
          py::arg("offset"), py::arg("size"), py::arg("copy"), py::arg("layout"));
    m.def("members", &archive_members, py::arg("path"));
}

}  // namespace inputanim::python
