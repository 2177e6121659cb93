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
#include "report/export_refusal.hpp"
#include "report/metrics_json.hpp"
#include "report/report_json.hpp"
#include "source.hpp"
#include "values.hpp"

namespace py = pybind11;

namespace inputanim::python {

namespace {

// A curve of an open recording: its numbers as views over the bytes.
class curve {
  public:
    curve(std::shared_ptr<const source> src, py::object buffer, const curve_view& c)
        : src_(std::move(src)), buffer_(std::move(buffer)), c_(c) {}

    std::string_view path() const { return c_.path(); }
    bool is_bool() const { return c_.kind == curve_kind::bool_curve; }
    bool is_full() const { return c_.keys.stride() == full_keyframe_size; }
    std::size_t size() const { return c_.size(); }

    // The field at byte `field` of every keyframe, as a read-only view over the bytes.
    py::array field(std::size_t field, const char* dtype) const {
        const std::byte* first =
            c_.keys.data() != nullptr ? c_.keys.data() : src_->loaded.bytes().data();
        // The flags (read-only) come from the buffer array, the base of every view.
        return py::array(py::dtype(dtype), {static_cast<py::ssize_t>(c_.size())},
                         {static_cast<py::ssize_t>(c_.keys.stride())}, first + field, buffer_);
    }
    py::object full_field(std::size_t field, const char* dtype) const {
        return is_full() ? py::object(this->field(field, dtype)) : py::object(py::none());
    }

    const curve_view& view() const { return c_; }

  private:
    std::shared_ptr<const source> src_;
    py::object buffer_;
    curve_view c_;
};

// The Recording behind inputanim.Recording.
class open_recording {
  public:
    explicit open_recording(std::shared_ptr<source> src) : src_(std::move(src)) {
        // A read-only uint8 array over all the bytes, owning (through a capsule) the source:
        // the base of every curve view, so that views keep the bytes alive.
        auto* owner = new std::shared_ptr<const source>(src_);
        py::capsule keep(owner,
                         [](void* p) { delete static_cast<std::shared_ptr<const source>*>(p); });
        const std::span<const std::byte> all = src_->loaded.bytes();
        py::array bytes(py::dtype("u1"), {static_cast<py::ssize_t>(all.size())}, {py::ssize_t{1}},
                        all.data(), keep);
        bytes.attr("setflags")(py::arg("write") = false);
        buffer_ = std::move(bytes);
    }

    const source& src() const { return *src_; }
    const recording& rec() const { return src_->loaded.recording(); }
    py::object buffer() const { return buffer_; }
    bool mapped() const { return src_->shared(); }

    py::list curves() const {
        py::list l;
        for (const curve_view& c : rec().curves()) l.append(curve(src_, buffer_, c));
        return l;
    }

    py::dict summary_dict() const {
        py::dict d;
        d["bytes"] = rec().summary().bytes;
        d.attr("update")(to_python(records::summary_json(rec().summary())));
        return d;
    }

    // The metrics (metrics.hpp) as a list of one dict of `inputanim metrics --csv`'s fields, in
    // its order. Raises ValueError for options or a grid that measure() refuses.
    py::list metrics(const py::dict& params) const {
        const metrics_options options = metrics_options_of(params);
        recording_metrics m;
        measure_without_gil(options, m, nullptr);
        py::dict d;
        for (const auto& [name, value] : records::metrics_row(m)) d[text(name)] = to_python(value);
        py::list rows;
        rows.append(d);
        return rows;
    }

    // The events of `kind` as the columns of `inputanim metrics --events KIND --csv` (name ->
    // numpy array, in its order), filled by measure() without the GIL. Raises ValueError as
    // metrics() does, and for a kind that is not one.
    py::dict events(const py::dict& params, const std::string& kind) const {
        const metrics_options options = metrics_options_of(params);
        event_columns columns(event_kind_named(kind));
        recording_metrics m;
        measure_without_gil(options, m, &columns);
        return columns.take();
    }

    // The warnings of a validation at level full (which reads every keyframe), and its error,
    // None when the content is valid.
    py::tuple check() const {
        report rep;
        const layout_choice layout = choice_of(rec().header());
        {
            py::gil_scoped_release release;
            std::error_code unread;
            rep = src_->loaded.check(validate_options{level::full, layout, {}}, false, unread);
        }
        if (rep.error.code == errc::io_error) {
            throw os_failure{std::make_error_code(std::errc::io_error), src_->path};
        }
        return py::make_tuple(warning_list(rep), rep.valid() ? py::object(py::none())
                                                             : py::object(error_dict(rep.error)));
    }

    // The export of inputanim/export.hpp: returned as bytes, or, given `path`, written there
    // through the command's one output primitive (a temporary file renamed once complete), and
    // its size returned. ValueError for what the exporter refuses, OSError for a failed write.
    py::object export_as(const std::string& format, double rate, std::optional<double> start,
                         std::optional<double> stop, std::uint64_t max_bytes,
                         const py::object& path_name) const {
        const std::optional<export_format> f = parse_export_format_name(format);
        if (!f) {
            throw py::value_error("format must be 'glb', 'gltf' or 'anim', not '" + format + "'");
        }
        std::optional<std::string> path;
        if (!path_name.is_none()) path = path_of(path_name);
        export_options o;
        o.format = *f;
        o.rate = rate;
        o.from = start;
        o.to = stop;
        o.max_bytes = max_bytes;
        // The file the recording was opened from, which the output must not be.
        std::vector<std::string> inputs;
        if (src_->named) inputs.push_back(src_->path);
        // A mapping is read under the guard, by the exporter's reads alone (they never allocate).
        const std::span<const std::byte> mapped =
            src_->loaded.mapped() ? src_->loaded.bytes() : std::span<const std::byte>{};
        export_result r;
        std::vector<std::byte> bytes;
        std::optional<records::output_failure> failure;
        {
            py::gil_scoped_release release;
            if (path) {
                records::output_file out;
                failure = out.open(*path, inputs);
                if (!failure) {
                    r = export_recording(rec(), out, o, mapped);
                    if (records::is_export_refusal(r) || r.source_failed) {
                        out.discard();
                    } else if (r.error) {
                        failure = out.failure(r.error);
                    } else {
                        failure = out.commit();
                    }
                }
            } else {
                vector_sink sink(bytes);
                r = export_recording(rec(), sink, o, mapped);
            }
        }
        if (records::is_export_refusal(r)) {
            throw py::value_error(
                records::describe_export_refusal(r, o, records::python_export_names).message);
        }
        if (r.source_failed) throw os_failure{r.error, src_->path};
        if (failure) {
            if (failure->refused) throw py::value_error(failure->message());
            PyErr_SetString(PyExc_OSError, failure->message().c_str());
            throw py::error_already_set();
        }
        if (r.error) throw std::bad_alloc();
        if (path) return py::int_(r.written);
        return py::bytes(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    }

    // The markers as (times, names), or None without a marker list.
    py::object markers() const {
        if (!rec().summary().markers) return py::none();
        const marker_range range = rec().markers();
        std::vector<float> times(range.size());
        std::vector<std::string> names(range.size());
        // The strings are sized before the guarded reads: a fault then only stops copies.
        std::vector<std::size_t> lengths(range.size());
        read_without_gil(*src_, [&] {
            for (const marker_view& m : range) lengths[m.index] = m.name.size();
        });
        for (std::size_t i = 0; i < names.size(); ++i) names[i].resize(lengths[i]);
        read_without_gil(*src_, [&] {
            for (const marker_view& m : range) {
                times[m.index] = m.time;
                if (!m.name.empty())
                    std::memcpy(names[m.index].data(), m.name.data(), m.name.size());
            }
        });
        py::array_t<float> t(static_cast<py::ssize_t>(times.size()));
        if (!times.empty())
            std::memcpy(t.mutable_data(), times.data(), times.size() * sizeof(float));
        py::list n;
        for (const std::string& s : names) n.append(text(s));
        return py::make_tuple(t, n);
    }

    // Resamples the curves the globs select (all when none) onto the grid from `start` to
    // `stop` at `rate`: (times, values[rows, curves], paths). With `curve_major` the values are
    // laid out curve after curve (Fortran order), so that values.T is contiguous: tidy() then
    // needs no transposing copy.
    // More than `max_rows` rows is refused before anything is allocated, and so are a start
    // after the stop and bounds no recording can hold, with the rules and words of `inputanim
    // sample` (--from, --to, --max-rows).
    py::tuple sample(double rate, const std::vector<std::string>& globs,
                     std::optional<double> start, std::optional<double> stop, bool curve_major,
                     std::uint64_t max_rows) const {
        if (const time_window window{start, stop}; window.problem()) {
            throw py::value_error(window.problem_text("start", "stop"));
        }
        // The resampler holds one sampler per curve inline: too large for the stack of a
        // Python thread.
        auto rs = std::make_unique<resampler>(rec());
        if (globs.empty()) rs->select_all();
        for (const std::string& glob : globs) {
            if (rs->select(glob) == 0) {
                throw py::value_error("curve glob '" + glob +
                                      "' matches no curve of the recording");
            }
        }
        const grid_error e = rs->set_grid(rate, start, stop, max_rows);
        const summary& sum = rec().summary();
        const double from = start ? *start : sum.start.value_or(0.0f);
        const double to = stop ? *stop : sum.duration.value_or(0.0f);
        if (e == grid_error::too_many_rows) {
            std::string message = "more than " + std::to_string(max_rows) +
                                  " rows (max_rows=" + std::to_string(max_rows) + "): from " +
                                  number_text(from) + " to " + number_text(to) + " at " +
                                  number_text(rate) + " per second";
            if (rs->point_count() != 0) {
                message += " is " + std::to_string(rs->point_count()) + " grid points";
            }
            throw py::value_error(message + "; raise max_rows, lower rate or narrow start/stop");
        }
        if (e != grid_error::none) {
            throw py::value_error("cannot sample: " + std::string(grid_error_name(e)));
        }
        if (rs->row_count() == 0) {
            // A start after a stop given both is refused above: here one is the recording's.
            throw py::value_error(
                start ? "start " + number_text(from) + " is after the recording's last key time " +
                            number_text(to) + " (give stop)"
                      : "stop " + number_text(to) + " is before the recording's first key time " +
                            number_text(from) + " (give start)");
        }
        const std::size_t rows = rs->row_count();
        const std::size_t cols = rs->curves().size();
        const auto r = static_cast<py::ssize_t>(rows);
        const auto c = static_cast<py::ssize_t>(cols);
        const auto f = static_cast<py::ssize_t>(sizeof(float));
        py::array_t<float> times(r);
        py::array_t<float> values({r, c}, curve_major ? std::vector<py::ssize_t>{f, r * f}
                                                      : std::vector<py::ssize_t>{c * f, f});
        float* t = times.mutable_data();
        float* v = values.mutable_data();
        if (!curve_major) {
            read_without_gil(*src_, [&] {
                for (std::size_t i = 0; i < rows; ++i) {
                    t[i] = *rs->next(std::span<float>(v + i * cols, cols));
                }
            });
        } else {
            // One row at a time in cache, then spread over the columns.
            std::vector<float> row(cols);
            read_without_gil(*src_, [&] {
                for (std::size_t i = 0; i < rows; ++i) {
                    t[i] = *rs->next(row);
                    for (std::size_t k = 0; k < cols; ++k) v[k * rows + i] = row[k];
                }
            });
        }
        py::list paths;
        for (const curve_id id : rs->curves()) paths.append(text(curve_path(id)));
        return py::make_tuple(times, values, paths);
    }

  private:
    // The options of metrics() and events() (their Python parameters, already named).
    static metrics_options metrics_options_of(const py::dict& params) {
        metrics_options options;
        for (const auto& [key, value] : params) {
            const std::string name = py::cast<std::string>(key);
            if (name == "rate") {
                options.rate = py::cast<double>(value);
            } else if (name == "joint") {
                const std::string joint = py::cast<std::string>(value);
                const auto j = std::find(joint_names.begin(), joint_names.end(), joint);
                if (j == joint_names.end()) throw py::value_error("no joint named '" + joint + "'");
                options.joint = static_cast<inputanim::joint>(j - joint_names.begin());
            } else if (name == "fixation_velocity") {
                options.fixation_velocity = py::cast<double>(value);
            } else if (name == "merge_gap") {
                options.merge_gap = py::cast<double>(value);
            } else if (name == "merge_angle") {
                options.merge_angle = py::cast<double>(value);
            } else if (name == "min_fixation") {
                options.min_fixation = py::cast<double>(value);
            } else if (name == "max_samples") {
                options.max_samples = py::cast<std::uint64_t>(value);
            } else {
                throw py::value_error("unknown metrics parameter '" + name + "'");
            }
        }
        if (const std::error_code ec = options.problem()) throw py::value_error(ec.message());
        return options;
    }

    void measure_without_gil(const metrics_options& options, recording_metrics& m,
                             metrics_sink* sink) const {
        std::error_code ec;
        read_without_gil(*src_, [&] { ec = measure(rec(), options, m, sink); });
        if (ec) throw py::value_error(ec.message());
    }

    std::shared_ptr<source> src_;
    py::object buffer_;
};

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

    py::class_<python::curve>(m, "Curve",
                              "One curve: its keyframes' fields as read-only numpy views")
        .def_property_readonly("path", &python::curve::path)
        .def_property_readonly(
            "kind", [](const python::curve& c) { return c.is_bool() ? "bool" : "float"; })
        .def_property_readonly("pre_wrap", [](const python::curve& c) { return c.view().pre_wrap; })
        .def_property_readonly("post_wrap",
                               [](const python::curve& c) { return c.view().post_wrap; })
        .def_property_readonly(
            "offset", [](const python::curve& c) { return c.view().offset; },
            "Byte offset of the curve's header in the file")
        .def_property_readonly("has_tangents", &python::curve::is_full)
        .def("__len__", &python::curve::size)
        .def_property_readonly("times", [](const python::curve& c) { return c.field(0, "<f4"); })
        .def_property_readonly("values", [](const python::curve& c) { return c.field(4, "<f4"); })
        .def_property_readonly("in_tangents",
                               [](const python::curve& c) { return c.full_field(8, "<f4"); })
        .def_property_readonly("out_tangents",
                               [](const python::curve& c) { return c.full_field(12, "<f4"); })
        .def_property_readonly("in_weights",
                               [](const python::curve& c) { return c.full_field(16, "<f4"); })
        .def_property_readonly("out_weights",
                               [](const python::curve& c) { return c.full_field(20, "<f4"); })
        .def_property_readonly("weighted_modes",
                               [](const python::curve& c) { return c.full_field(24, "<i4"); })
        .def("__repr__", [](const python::curve& c) {
            return "<inputanim.Curve " + std::string(c.path()) + ": " + std::to_string(c.size()) +
                   " keys>";
        });

    py::class_<open_recording>(m, "Recording")
        .def_property_readonly("buffer", &open_recording::buffer)
        .def_property_readonly("mapped", &open_recording::mapped)
        .def_property_readonly("summary", &open_recording::summary_dict)
        .def("curves", &open_recording::curves)
        .def("check", &open_recording::check)
        .def("metrics", &open_recording::metrics, py::arg("params"))
        .def("events", &open_recording::events, py::arg("params"), py::arg("kind"))
        .def("markers", &open_recording::markers)
        .def("export", &open_recording::export_as, py::arg("format"), py::arg("rate"),
             py::arg("start"), py::arg("stop"), py::arg("max_bytes"), py::arg("path"))
        .def("sample", &open_recording::sample, py::arg("rate"), py::arg("globs"), py::arg("start"),
             py::arg("stop"), py::arg("curve_major") = false,
             py::arg("max_rows") = records::default_max_rows);

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
    m.def("curve_paths", [] {
        py::list l;
        for (std::size_t i = 0; i < curve_id_count; ++i) l.append(text(curve_path(curve_id(i))));
        return l;
    });

    bind_validate(m);
    bind_limits(m);
    bind_events(m);
}
