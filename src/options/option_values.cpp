#include "value_checks.hpp"

#include <netprof/options.hpp>

#include <algorithm>
#include <stdexcept>

namespace netprof {

namespace {

// The rule of the kind a getter reads; asking for another kind is a mistake in the code.
template <typename Rule> const Rule& rule_of(const OptionSpec& spec)
{
  const Rule* rule = std::get_if<Rule>(&spec.rule);
  if (rule == nullptr) {
    throw std::logic_error("option --" + spec.long_name + " is read as another kind of value");
  }
  return *rule;
}

// The value of `spec` (given, implicit or default) put through `check`; none without one.
template <typename Rule, typename Check>
auto read(const OptionValues& values, const OptionSpec& spec, Check&& check)
{
  const Rule& rule = rule_of<Rule>(spec);
  const std::optional<std::string> value = values.text(spec);
  using Result = decltype(check(rule, *value));
  return value ? std::optional<Result>(check(rule, *value)) : std::nullopt;
}

} // namespace

OptionSpec::OptionSpec(std::string_view names, std::string value_name_, ValueRule rule_,
                       std::string help_)
    : long_name(names.substr(0, names.find(','))), value_name(std::move(value_name_)),
      rule(std::move(rule_)), help(std::move(help_))
{
  if (const std::size_t comma = names.find(','); comma != std::string_view::npos) {
    short_name = names.at(comma + 1);
  }
}

OptionSpec OptionSpec::with_default(std::string text) &&
{
  default_text = std::move(text);
  return std::move(*this);
}

OptionSpec OptionSpec::with_implicit(std::string text) &&
{
  implicit_text = std::move(text);
  return std::move(*this);
}

OptionSpec OptionSpec::per_stream(StreamRule addresses) &&
{
  stream = addresses;
  return std::move(*this);
}

OptionSpec OptionSpec::per_stream_named(char separator) &&
{
  stream = StreamRule::name_suffix;
  stream_separator = separator;
  return std::move(*this);
}

OptionSpec OptionSpec::per_stream(StreamRule addresses, std::uint32_t ports_each) &&
{
  stream = addresses;
  stream_ports = ports_each;
  return std::move(*this);
}

OptionSpec OptionSpec::repeatable() &&
{
  is_repeatable = true;
  return std::move(*this);
}

OptionSpec OptionSpec::passed(PairRoute route) &&
{
  pair = route;
  return std::move(*this);
}

bool OptionGroup::contains(std::string_view long_name) const noexcept
{
  return std::any_of(options.begin(), options.end(),
                     [&](const OptionSpec& spec) { return spec.long_name == long_name; });
}

const OptionSpec& OptionGroup::operator[](std::string_view long_name) const
{
  for (const OptionSpec& spec : options) {
    if (spec.long_name == long_name) {
      return spec;
    }
  }
  throw std::logic_error("no option --" + std::string(long_name) + " in " + caption);
}

void OptionValues::add(GivenOption option)
{
  m_given.push_back(std::move(option));
}

bool OptionValues::given(std::string_view long_name) const noexcept
{
  return last(long_name) != nullptr;
}

const GivenOption* OptionValues::last(std::string_view long_name) const noexcept
{
  const auto found = std::find_if(m_given.rbegin(), m_given.rend(),
                                  [&](const GivenOption& o) { return o.long_name == long_name; });
  return found == m_given.rend() ? nullptr : &*found;
}

std::optional<std::string> OptionValues::text(const OptionSpec& spec) const
{
  if (const GivenOption* option = last(spec.long_name)) {
    if (!option->values.empty()) {
      return option->values.back();
    }
    if (spec.implicit_text) {
      return spec.implicit_text;
    }
  }
  return spec.default_text;
}

std::vector<std::string> OptionValues::texts(const OptionSpec& spec) const
{
  std::vector<std::string> result;
  for (const GivenOption& option : m_given) {
    if (option.long_name == spec.long_name) {
      result.insert(result.end(), option.values.begin(), option.values.end());
    }
  }
  return result;
}

bool OptionValues::on(const OptionSpec& spec) const
{
  rule_of<Switch>(spec);
  return given(spec.long_name);
}

std::optional<std::uint64_t> OptionValues::whole_number(const OptionSpec& spec) const
{
  return read<WholeNumber>(*this, spec, [&](const WholeNumber& rule, const std::string& value) {
    return options::checked_whole_number(spec, rule, value);
  });
}

std::optional<double> OptionValues::real_number(const OptionSpec& spec) const
{
  return read<RealNumber>(*this, spec, [&](const RealNumber& rule, const std::string& value) {
    return options::checked_real_number(spec, rule, value);
  });
}

std::optional<std::size_t> OptionValues::choice(const OptionSpec& spec) const
{
  return read<Choice>(*this, spec, [&](const Choice& rule, const std::string& value) {
    return options::checked_choice(spec, rule, value);
  });
}

std::optional<std::vector<int>> OptionValues::cpu_list(const OptionSpec& spec) const
{
  return read<CpuList>(*this, spec, [&](const CpuList&, const std::string& value) {
    return options::checked_cpu_list(spec, value);
  });
}

std::optional<std::string> OptionValues::file_path(const OptionSpec& spec) const
{
  return read<FilePath>(*this, spec, [&](const FilePath&, const std::string& value) {
    options::check_file_path(spec, value);
    return value;
  });
}

} // namespace netprof
