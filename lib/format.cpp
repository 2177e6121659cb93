#include "inputanim/format.hpp"

#include <bitset>

#include "inputanim/detail/names.hpp"
#include "inputanim/reader.hpp"

namespace inputanim {

std::string_view layout_name(layout l) noexcept {
    switch (l) {
        case layout::compact:
            return "compact";
        case layout::full:
            return "full";
    }
    return detail::unknown_name;
}

std::optional<layout> parse_layout_name(std::string_view name) noexcept {
    return detail::parse_name<layout>(name, layout_name);
}

std::string_view version_name(edition e, int major, int minor) noexcept {
    switch (e) {
        case edition::june_2019:
            return "2019-06";
        case edition::may_2019:
            return "2019-05";
        case edition::v1:
            break;
    }
    if (major != 1) return {};
    return minor == 0 ? "1.0" : "1.1";
}

std::string_view layout_choice_name(layout_choice choice) noexcept {
    switch (choice) {
        case layout_choice::automatic:
            return "auto";
        case layout_choice::compact:
            return "compact";
        case layout_choice::full:
            return "full";
        case layout_choice::june_2019:
            return "2019-06";
        case layout_choice::may_2019:
            return "2019-05";
    }
    return detail::unknown_name;
}

std::optional<layout_choice> parse_layout_choice_name(std::string_view name) noexcept {
    return detail::parse_name<layout_choice>(name, layout_choice_name);
}

namespace {

constexpr std::array<std::string_view, pose_channel_count> pose_names = {
    "position.x", "position.y", "position.z", "rotation.x",
    "rotation.y", "rotation.z", "rotation.w"};
constexpr std::array<std::string_view, ray_channel_count> ray_names = {
    "origin.x", "origin.y", "origin.z", "direction.x", "direction.y", "direction.z"};
constexpr std::array<std::string_view, hand_state_count> hand_state_names = {
    "hand.left.tracked", "hand.right.tracked", "hand.left.pinching", "hand.right.pinching"};

// All 395 paths packed into one constant buffer, so that curve_path is a lookup.
struct path_table {
    static constexpr std::size_t capacity = 20000;
    std::array<char, capacity> chars{};
    std::array<std::uint16_t, curve_id_count + 1> starts{};
};

constexpr path_table make_paths() {
    path_table t;
    std::size_t used = 0;
    std::size_t id = 0;
    auto begin_path = [&] { t.starts[id] = static_cast<std::uint16_t>(used); };
    auto append = [&](std::string_view s) {
        for (char c : s) t.chars[used++] = c;
    };
    for (auto c : pose_names) {
        begin_path();
        append("camera.");
        append(c);
        ++id;
    }
    for (auto s : hand_state_names) {
        begin_path();
        append(s);
        ++id;
    }
    for (std::string_view hand :
         {std::string_view("hand.left.joint."), std::string_view("hand.right.joint.")}) {
        for (auto j : joint_names) {
            for (auto c : pose_names) {
                begin_path();
                append(hand);
                append(j);
                append(".");
                append(c);
                ++id;
            }
        }
    }
    for (auto c : ray_names) {
        begin_path();
        append("gaze.");
        append(c);
        ++id;
    }
    t.starts[id] = static_cast<std::uint16_t>(used);
    return t;
}

constexpr path_table paths = make_paths();
static_assert(paths.starts[curve_id_count] < path_table::capacity);

// Runs the glob as a set of reachable path positions (one bit each), so that no glob, however
// many stars it has, costs more than glob length x path length.
bool glob_match(std::string_view g, std::string_view s) noexcept {
    constexpr std::size_t max_path = 255;
    if (s.size() > max_path) return false;
    const std::size_t n = s.size();
    std::bitset<max_path + 1> cur;
    cur.set(0);
    for (std::size_t gi = 0; gi < g.size() && cur.any(); ++gi) {
        std::bitset<max_path + 1> next;
        if (g[gi] == '*') {
            const bool crosses_dots = gi + 1 < g.size() && g[gi + 1] == '*';
            if (crosses_dots) ++gi;
            bool reachable = false;
            for (std::size_t j = 0; j <= n; ++j) {
                reachable = reachable || cur[j];
                next[j] = reachable;
                if (j < n && s[j] == '.' && !crosses_dots) reachable = false;
            }
        } else {
            for (std::size_t j = 0; j < n; ++j) {
                if (cur[j] && (g[gi] == s[j] || (g[gi] == '?' && s[j] != '.'))) next.set(j + 1);
            }
        }
        cur = next;
    }
    return cur[n];
}

}  // namespace

std::string_view curve_path(curve_id id) noexcept {
    const std::size_t i = to_index(id);
    if (i >= curve_id_count) return {};
    return {paths.chars.data() + paths.starts[i],
            static_cast<std::size_t>(paths.starts[i + 1] - paths.starts[i])};
}

std::optional<curve_id> find_curve(std::string_view path) noexcept {
    for (std::size_t i = 0; i < curve_id_count; ++i) {
        if (curve_path(curve_id(i)) == path) return curve_id(i);
    }
    return std::nullopt;
}

bool path_matches(std::string_view glob, std::string_view path) noexcept {
    return glob_match(glob, path);
}

}  // namespace inputanim
