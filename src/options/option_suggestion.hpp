#pragma once

// "did you mean": the option a mistyped flag most likely meant, from the option table itself,
// so every option (the core's and each transport's) is suggested without a list of its own.

#include <netprof/options.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace netprof::options {

// Edits (insert, delete, replace, swap two neighbours) that turn `a` into `b`.
std::size_t edit_distance(std::string_view a, std::string_view b);

// The long name `typed` (with or without its dashes, "=value" ignored) most likely meant: the
// only option it begins, or the nearest within a couple of edits; none when nothing is near
// or two are equally near.
std::optional<std::string> suggested_option(std::string_view typed,
                                            const std::vector<const OptionGroup*>& groups);

// " (did you mean '--subscribers'?)" or, with nothing to suggest, " (see --help)".
std::string suggestion_for(std::string_view typed, const std::vector<const OptionGroup*>& groups);

} // namespace netprof::options
