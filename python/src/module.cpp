// inputanim._core: the C++ side of the Python package. Names become bytes only through the
// library's front door (input.hpp). Curves are numpy views over the bytes of the mapping (or of
// the copy); every work that walks many bytes (validation, sampling, indexing) runs without the
// GIL and under the mapping's guard. The objects are immutable once built, so several Python
// threads may use them at once.
#include <sys/stat.h>
#include <unistd.h>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <utility>
#include <vector>

#include "bind.hpp"
#include "events.hpp"
#include "index/index_row.hpp"
#include "index/indexer.hpp"
#include "inputanim/detail/number_text.hpp"
#include "inputanim/evaluate.hpp"
#include "inputanim/export.hpp"
#include "inputanim/guard.hpp"
#include "inputanim/input.hpp"
#include "inputanim/loaded.hpp"
#include "inputanim/metrics.hpp"
#include "inputanim/recording.hpp"
#include "inputanim/time_window.hpp"
#include "inputanim/validate.hpp"
#include "os/ceilings.hpp"
#include "os/output_file.hpp"
#include "os/text.hpp"
#include "recording.hpp"
#include "report/export_refusal.hpp"
#include "report/metrics_json.hpp"
#include "report/report_json.hpp"
#include "source.hpp"
#include "values.hpp"

namespace py = pybind11;

namespace inputanim::python {

namespace {

// Paths as the package's _path gives them (os.fsencode, checked for NUL): bytes.
std::vector<std::string> name_bytes(const py::list& names) {
    std::vector<std::string> out;
    out.reserve(names.size());
    for (const py::handle name : names) out.push_back(path_of(name));
    return out;
}

// The database of index(sqlite=...): None, or its path.
std::optional<std::string> database_of(const py::object& name) {
    if (name.is_none()) return std::nullopt;
    return path_of(name);
}

// The files `inputanim index` finds for its PATH operands, in its order (indexer.hpp's walk),
// without FIFOs, sockets and devices; the operands that do not exist and the folders that could
// not be listed, with their errno.
py::tuple list_files(const py::list& operand_names) {
    struct collector final : records::walk_visitor {
        std::vector<std::string> paths;
        std::vector<bool> named;
        std::vector<std::pair<std::string, int>> missing;
        std::vector<std::pair<std::string, int>> unlisted;

        void file(const std::string& path, bool is_named, const struct stat*) override {
            paths.push_back(path);
            named.push_back(is_named);
        }
        void other(const std::string&) override {}
        void failed(const std::string& path, int error, bool listing) override {
            (listing ? unlisted : missing).emplace_back(path, error);
        }
    };
    const std::vector<std::string> operands = name_bytes(operand_names);
    collector found;
    {
        py::gil_scoped_release release;
        for (const std::string& operand : operands) records::walk_operand(operand, found, false);
    }
    py::list paths;
    for (const std::string& p : found.paths) paths.append(name_text(p));
    const auto with_names = [](const std::vector<std::pair<std::string, int>>& v) {
        py::list out;
        for (const auto& [name, code] : v) out.append(py::make_tuple(name_text(name), code));
        return out;
    };
    return py::make_tuple(paths, found.named, with_names(found.missing),
                          with_names(found.unlisted));
}

// A run of `inputanim index` (indexer.hpp) without the GIL: its rows are kept as they come, and
// made into the frame's columns afterwards.
class python_run final : public records::index_observer {
  public:
    // `inputs`: the names indexed, none of which the database may be.
    python_run(const records::index_plan& plan, const std::optional<std::string>& sqlite,
               std::span<const std::string> inputs)
        : metrics_(plan.metrics.has_value()) {
        if (sqlite) store_.emplace(*sqlite, plan.prune, inputs);
        run_.emplace(plan, store_ ? &*store_ : nullptr, *this);
    }

    template <class F>
    void run(F&& add) {
        py::gil_scoped_release release;
        add(*run_);
        run_->finish();
    }

    // (columns, totals, notes): the rows' fields by column (index_columns, and metrics_columns
    // with metrics), a list of one value per row each (None where the row has null or no such
    // field), the counts of the command's last line, and the walk's complaints ("NAME: reason").
    py::tuple result() const {
        py::dict columns;
        const auto add = [&](const records::index_column& c) {
            const std::string name(c.name);
            py::list values(rows_.size());
            for (std::size_t i = 0; i < rows_.size(); ++i) {
                const auto it = rows_[i].find(name);
                values[i] = it == rows_[i].end() ? py::none() : to_python(*it, true);
            }
            columns[text(name)] = values;
        };
        for (const records::index_column& c : records::index_columns) add(c);
        if (metrics_) {
            for (const records::index_column& c : records::metrics_columns) add(c);
        }
        const records::index_totals& t = run_->counts();
        py::dict totals;
        totals["files"] = t.files;
        totals["recordings"] = t.recordings;
        totals["invalid"] = t.invalid;
        totals["unreadable"] = t.unreadable;
        totals["other"] = t.other;
        totals["unchanged"] = t.unchanged;
        totals["pruned"] = t.pruned;
        py::list notes;
        for (const std::string& n : notes_) notes.append(text(n));
        return py::make_tuple(columns, totals, notes);
    }

    void note(const std::string& message) override { notes_.push_back(message); }
    void row(const records::file_result&, records::index_row&& row) override {
        rows_.push_back(std::move(row).take_fields());
    }

  private:
    bool metrics_;
    std::optional<records::sqlite_store> store_;
    std::optional<records::indexer> run_;
    std::vector<nlohmann::json> rows_;
    std::vector<std::string> notes_;
};

records::index_plan index_plan_of(unsigned jobs, const std::string& level_name,
                                  const std::string& layout_name, const py::dict& limit_values,
                                  bool force, bool prune, unsigned shard, unsigned shards,
                                  bool metrics, bool archives) {
    if (shards == 0 || shard >= shards) throw py::value_error("shard must be (K, N), 0 <= K < N");
    records::index_plan plan;
    plan.how = options_of(level_name, layout_name, limit_values, 1);
    plan.jobs = std::max(1u, jobs);
    plan.force = force;
    plan.prune = prune;
    plan.shard = shard;
    plan.shards = shards;
    plan.archives = archives;
    if (metrics) {
        // As `inputanim index --metrics`.
        plan.metrics.emplace();
        plan.metrics->max_samples = records::default_max_rows;
    }
    return plan;
}

// `inputanim index` of PATH operands (folders walked, files named), into the rows of --jsonl
// and, with `sqlite`, its database.
py::tuple index_paths(const py::list& operand_names, unsigned jobs, const std::string& level_name,
                      const std::string& layout_name, const py::dict& limit_values,
                      const py::object& sqlite, bool force, bool prune, unsigned shard,
                      unsigned shards, bool metrics, bool archives) {
    const std::vector<std::string> operands = name_bytes(operand_names);
    python_run r(index_plan_of(jobs, level_name, layout_name, limit_values, force, prune, shard,
                               shards, metrics, archives),
                 database_of(sqlite), operands);
    r.run([&](records::indexer& run) {
        for (const std::string& operand : operands) run.add_operand(operand);
    });
    return r.result();
}

// The same over files list_files found (named: given by name, indexed whatever their content),
// without walking again: a part of a list that is indexed on several machines.
py::tuple index_files(const py::list& path_names, const std::vector<bool>& named, unsigned jobs,
                      const std::string& level_name, const std::string& layout_name,
                      const py::dict& limit_values, const py::object& sqlite, bool force,
                      bool metrics, bool archives) {
    const std::vector<std::string> paths = name_bytes(path_names);
    if (paths.size() != named.size()) throw py::value_error("paths and named differ in length");
    python_run r(index_plan_of(jobs, level_name, layout_name, limit_values, force, false, 0, 1,
                               metrics, archives),
                 database_of(sqlite), paths);
    r.run([&](records::indexer& run) {
        for (std::size_t i = 0; i < paths.size(); ++i) run.add_listed(paths[i], named[i]);
    });
    return r.result();
}

// Why the output `output_path` may not be written: it is one of `input_paths` (the output
// primitive's check); None when it may.
py::object output_is_input(const py::bytes& output_path, const py::list& input_paths) {
    const std::optional<records::output_failure> itself =
        records::output_is_input(path_of(output_path), name_bytes(input_paths));
    if (!itself) return py::none();
    return text(itself->message());
}

// `inputanim index merge OUT IN...`.
void merge_index(const py::bytes& output_path, const py::list& input_paths) {
    const std::string output = path_of(output_path);
    const std::vector<std::string> inputs = name_bytes(input_paths);
    py::gil_scoped_release release;
    records::merge_indexes(output, inputs);
}

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

}  // namespace inputanim::python

PYBIND11_MODULE(_core, m) {
    using namespace inputanim;
    using namespace inputanim::python;
    m.doc() = "The C++ core of inputanim; use the inputanim package.";

    // A database that is not an index of the command's schema, or that could not be written.
    py::register_exception<records::store_error>(m, "DatabaseError", PyExc_RuntimeError);
    py::register_exception_translator([](std::exception_ptr p) {
        try {
            if (p) std::rethrow_exception(p);
        } catch (const os_failure& f) {
            py::object exc = py::reinterpret_borrow<py::object>(PyExc_OSError)(
                f.code.value(), f.code.message(), name_text(f.path));
            PyErr_SetObject(PyExc_OSError, exc.ptr());
        }
    });

    m.def("open", &open_path, py::arg("path"), py::arg("copy"), py::arg("layout"),
          py::arg("by_reads") = true);
    m.def("open_buffer", &open_buffer, py::arg("data"), py::arg("layout"));
    m.def("open_member", &open_archive_member, py::arg("path"), py::arg("member"),
          py::arg("offset"), py::arg("size"), py::arg("copy"), py::arg("layout"));
    m.def("members", &archive_members, py::arg("path"));
    m.def("list_files", &list_files, py::arg("operands"));
    m.def("index_paths", &index_paths, py::arg("operands"), py::arg("jobs"), py::arg("level"),
          py::arg("layout"), py::arg("limits"), py::arg("sqlite"), py::arg("force"),
          py::arg("prune"), py::arg("shard"), py::arg("shards"), py::arg("metrics"),
          py::arg("archives") = true);
    m.def("index_files", &index_files, py::arg("paths"), py::arg("named"), py::arg("jobs"),
          py::arg("level"), py::arg("layout"), py::arg("limits"), py::arg("sqlite"),
          py::arg("force"), py::arg("metrics"), py::arg("archives") = true);
    m.def("merge_index", &merge_index, py::arg("output"), py::arg("inputs"));
    m.def("output_is_input", &output_is_input, py::arg("output"), py::arg("inputs"));
    // The columns of index()'s frame, as (name, type name) pairs (index/index_row.hpp).
    const auto column_list = [](const auto& table) {
        py::list l;
        for (const records::index_column& c : table) {
            l.append(py::make_tuple(text(c.name), text(records::column_type_name(c.type))));
        }
        return l;
    };
    m.attr("INDEX_COLUMNS") = column_list(records::index_columns);
    m.attr("METRICS_COLUMNS") = column_list(records::metrics_columns);

    bind_recording(m);
    bind_validate(m);
    bind_limits(m);
    bind_events(m);
}
