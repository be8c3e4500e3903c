#include "option_suggestion.hpp"

#include <algorithm>
#include <limits>

namespace netprof::options {

namespace {

std::string_view bare_name(std::string_view typed)
{
  while (typed.starts_with('-'))
    typed.remove_prefix(1);
  return typed.substr(0, typed.find('='));
}

// A typo of one or two characters in a long name; short names are too short to guess from.
std::size_t edits_allowed(std::string_view name)
{
  return name.size() <= 3 ? 0 : (name.size() <= 6 ? 1 : 2);
}

std::vector<std::string> long_names(const std::vector<const OptionGroup*>& groups)
{
  std::vector<std::string> names;
  for (const OptionGroup* group : groups)
    for (const OptionSpec& spec : group->options)
      if (std::find(names.begin(), names.end(), spec.long_name) == names.end())
        names.push_back(spec.long_name);
  return names;
}

} // namespace

std::size_t edit_distance(std::string_view a, std::string_view b)
{
  // Optimal string alignment distance over three rows.
  std::vector<std::size_t> before(b.size() + 1), previous(b.size() + 1), current(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j)
    previous[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    current[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      current[j] = std::min({previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        current[j] = std::min(current[j], before[j - 2] + 1);
    }
    before.swap(previous);
    previous.swap(current);
  }
  return previous[b.size()];
}

std::optional<std::string> suggested_option(std::string_view typed,
                                            const std::vector<const OptionGroup*>& groups)
{
  const std::string_view name = bare_name(typed);
  if (name.empty())
    return std::nullopt;
  const std::vector<std::string> names = long_names(groups);

  std::vector<std::string> extended;
  for (const std::string& candidate : names)
    if (name.size() >= 3 && candidate.starts_with(name))
      extended.push_back(candidate);
  if (extended.size() == 1)
    return extended.front();

  std::optional<std::string> nearest;
  std::size_t best = std::numeric_limits<std::size_t>::max();
  bool tied = false;
  for (const std::string& candidate : names) {
    const std::size_t distance = edit_distance(name, candidate);
    if (distance < best) {
      best = distance;
      nearest = candidate;
      tied = false;
    } else if (distance == best) {
      tied = true;
    }
  }
  if (!nearest || tied || best > edits_allowed(name))
    return std::nullopt;
  return nearest;
}

std::string suggestion_for(std::string_view typed, const std::vector<const OptionGroup*>& groups)
{
  const std::optional<std::string> suggestion = suggested_option(typed, groups);
  return suggestion ? " (did you mean '--" + *suggestion + "'?)" : " (see --help)";
}

} // namespace netprof::options
