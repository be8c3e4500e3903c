#pragma once

// The checks behind OptionValues' getters, one per kind of value, each refusing a bad value in
// the wording every option shares: "invalid value 'x' for --name: expected ...".

#include <netprof/options.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace netprof::options {

// "invalid value 'x' for --name", the start of every message about one option's value.
std::string invalid_value(const OptionSpec& spec, std::string_view text);

std::uint64_t checked_whole_number(const OptionSpec& spec, const WholeNumber& rule,
                                   std::string_view text);
double checked_real_number(const OptionSpec& spec, const RealNumber& rule, std::string_view text);
std::size_t checked_choice(const OptionSpec& spec, const Choice& rule, std::string_view text);
std::vector<int> checked_cpu_list(const OptionSpec& spec, std::string_view text);
// Checked now so a typo fails before a ten-second run (or before the local pair starts its two
// processes), not after it.
void check_file_path(const OptionSpec& spec, const std::string& path);

} // namespace netprof::options
