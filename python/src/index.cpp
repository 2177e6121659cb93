// index(): the command's index run (tools/index) over paths or listed files, without the GIL,
// into the columns of index()'s frame and, with `sqlite`, its database; the walk that lists the
// files, and merge_index() (with its check that the output is none of the inputs).
#include <sys/stat.h>

#include <pybind11/stl.h>

#include <algorithm>
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "bind.hpp"
#include "index/index_pool.hpp"
#include "index/index_row.hpp"
#include "index/indexer.hpp"
#include "index/sqlite_store.hpp"
#include "os/ceilings.hpp"
#include "os/output_file.hpp"
#include "values.hpp"

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
    struct collector final : tools::walk_visitor {
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
        for (const std::string& operand : operands) tools::walk_operand(operand, found);
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
class python_run final : public tools::index_observer {
  public:
    // `inputs`: the names indexed, none of which the database may be.
    python_run(const tools::index_plan& plan, const std::optional<std::string>& sqlite,
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
        const auto add = [&](const tools::index_column& c) {
            const std::string name(c.name);
            py::list values(rows_.size());
            for (std::size_t i = 0; i < rows_.size(); ++i) {
                const auto it = rows_[i].find(name);
                values[i] = it == rows_[i].end() ? py::none() : to_python(*it, true);
            }
            columns[text(name)] = values;
        };
        for (const tools::index_column& c : tools::index_columns) add(c);
        if (metrics_) {
            for (const tools::index_column& c : tools::metrics_columns) add(c);
        }
        const tools::index_totals& t = run_->counts();
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
    void row(const tools::file_result&, tools::index_row&& row) override {
        rows_.push_back(std::move(row).take_fields());
    }

  private:
    bool metrics_;
    std::optional<tools::sqlite_store> store_;
    std::optional<tools::indexer> run_;
    std::vector<nlohmann::json> rows_;
    std::vector<std::string> notes_;
};

tools::index_plan index_plan_of(unsigned jobs, const std::string& level_name,
                                const std::string& layout_name, const py::dict& limit_values,
                                bool force, bool prune, unsigned shard, unsigned shards,
                                bool metrics, bool archives) {
    if (shards == 0 || shard >= shards) throw py::value_error("shard must be (K, N), 0 <= K < N");
    tools::index_plan plan;
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
        plan.metrics->max_samples = tools::default_max_rows;
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
    r.run([&](tools::indexer& run) {
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
    r.run([&](tools::indexer& run) {
        for (std::size_t i = 0; i < paths.size(); ++i) run.add_listed(paths[i], named[i]);
    });
    return r.result();
}

// Why the output `output_path` may not be written: it is one of `input_paths` (the output
// primitive's check); None when it may.
py::object output_is_input(const py::bytes& output_path, const py::list& input_paths) {
    const std::optional<tools::output_failure> itself =
        tools::output_is_input(path_of(output_path), name_bytes(input_paths));
    if (!itself) return py::none();
    return text(itself->message());
}

// `inputanim index merge OUT IN...`.
void merge_index(const py::bytes& output_path, const py::list& input_paths) {
    const std::string output = path_of(output_path);
    const std::vector<std::string> inputs = name_bytes(input_paths);
    py::gil_scoped_release release;
    tools::merge_indexes(output, inputs);
}

}  // namespace

void bind_index(py::module_& m) {
    // A database that is not an index of the command's schema, or that could not be written.
    py::register_exception<tools::store_error>(m, "DatabaseError", PyExc_RuntimeError);
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
        for (const tools::index_column& c : table) {
            l.append(py::make_tuple(text(c.name), text(tools::column_type_name(c.type))));
        }
        return l;
    };
    m.attr("INDEX_COLUMNS") = column_list(tools::index_columns);
    m.attr("METRICS_COLUMNS") = column_list(tools::metrics_columns);
}

}  // namespace inputanim::python
