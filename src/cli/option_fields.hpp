#pragma once

// How a row of the core's option table sets its RunConfig field: field<&RunConfig::x> reads the
// option through the getter of its kind (a number, a choice, a CPU list...) and stores it in
// the field's own type. An optional field is set only when the option has a value.

#include <netprof/config.hpp>
#include <netprof/options.hpp>

#include <optional>
#include <string>
#include <type_traits>
#include <vector>

namespace netprof::cli {

template <typename T> struct is_optional : std::false_type {
};
template <typename T> struct is_optional<std::optional<T>> : std::true_type {
};

template <typename Value>
std::optional<Value> typed_value(const OptionValues& values, const OptionSpec& spec)
{
  if constexpr (std::is_enum_v<Value>) {
    // The table lists an enum's choices in the order of its enumerators.
    const auto index = values.choice(spec);
    return index ? std::optional<Value>(static_cast<Value>(*index)) : std::nullopt;
  } else if constexpr (std::is_floating_point_v<Value>) {
    return values.real_number(spec);
  } else if constexpr (std::is_integral_v<Value>) {
    const auto number = values.whole_number(spec);
    return number ? std::optional<Value>(static_cast<Value>(*number)) : std::nullopt;
  } else if constexpr (std::is_same_v<Value, std::vector<int>>) {
    return values.cpu_list(spec);
  } else {
    static_assert(std::is_same_v<Value, std::string>);
    return std::holds_alternative<FilePath>(spec.rule) ? values.file_path(spec) : values.text(spec);
  }
}

template <auto Member>
void field(RunConfig& config, const OptionValues& values, const OptionSpec& spec)
{
  using Field = std::remove_cvref_t<decltype(config.*Member)>;
  if constexpr (std::is_same_v<Field, bool>) {
    config.*Member = values.on(spec);
  } else if constexpr (is_optional<Field>::value) {
    if (auto value = typed_value<typename Field::value_type>(values, spec)) {
      config.*Member = *value;
    }
  } else if (auto value = typed_value<Field>(values, spec)) {
    config.*Member = *value;
  }
}

} // namespace netprof::cli
