#include "value_checks.hpp"

#include "number_parsing.hpp"
#include "output_file_safety.hpp"

#include <netprof/errors.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <limits>
#include <system_error>

namespace netprof::options {

namespace {

[[noreturn]] void refuse(const OptionSpec& spec, std::string_view text, const std::string& reason)
{
  throw UsageError(invalid_value(spec, text) + ": " + reason);
}

std::size_t online_cpus()
{
  const long count = ::sysconf(_SC_NPROCESSORS_ONLN);
  return count > 0 ? static_cast<std::size_t>(count) : 1;
}

// True when `path` can be opened for writing. An existing file is left as it was; one that did
// not exist is removed again. O_NONBLOCK: a FIFO nobody reads fails at once instead of hanging.
bool can_write(const std::string& path, std::string& reason)
{
  const int fd =
      ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_EXCL | O_NONBLOCK | O_CLOEXEC, 0644);
  if (fd >= 0) {
    ::close(fd);
    ::unlink(path.c_str()); // it did not exist: leave nothing behind
    return true;
  }
  if (errno == EEXIST) {
    const int existing = ::open(path.c_str(), O_WRONLY | O_APPEND | O_NONBLOCK | O_CLOEXEC);
    if (existing >= 0) {
      ::close(existing);
      return true;
    }
  }
  reason = std::generic_category().message(errno);
  return false;
}

// A missing file or directory is what the next check reports in words of its own.
bool refusal(const std::error_code& error)
{
  return error && error != std::errc::no_such_file_or_directory &&
         error != std::errc::not_a_directory;
}

} // namespace

std::string invalid_value(const OptionSpec& spec, std::string_view text)
{
  return "invalid value '" + std::string(text) + "' for --" + spec.long_name;
}

std::uint64_t checked_whole_number(const OptionSpec& spec, const WholeNumber& rule,
                                   std::string_view text)
{
  const auto parsed = rule.byte_suffixes ? parse_byte_size(text) : parse_unsigned(text);
  const bool too_large = parsed.status == NumberStatus::out_of_range ||
                         (parsed.status == NumberStatus::ok && parsed.value > rule.max);
  if (too_large && rule.names_too_large) {
    refuse(spec, text, "too large (at most " + std::to_string(rule.max) + ")");
  }
  if (too_large || parsed.status != NumberStatus::ok || parsed.value < rule.min) {
    const bool unbounded = rule.max == std::numeric_limits<std::uint64_t>::max();
    const std::string what = rule.byte_suffixes ? "a size in bytes" : "a whole number";
    const std::string units =
        rule.byte_suffixes ? std::string(" (") + byte_suffixes_help + ")" : std::string();
    refuse(spec, text,
           (unbounded ? "expected " + what + " >= " + std::to_string(rule.min)
                      : "expected " + what + " from " + std::to_string(rule.min) + " to " +
                            std::to_string(rule.max)) +
               units);
  }
  return parsed.value;
}

double checked_real_number(const OptionSpec& spec, const RealNumber& rule, std::string_view text)
{
  const auto parsed = parse_finite_double(text);
  const bool in_range = parsed.status == NumberStatus::ok &&
                        (rule.min_inclusive ? parsed.value >= rule.min : parsed.value > rule.min) &&
                        parsed.value <= rule.max;
  if (!in_range) {
    refuse(spec, text, "expected " + rule.expected);
  }
  return parsed.value;
}

std::size_t checked_choice(const OptionSpec& spec, const Choice& rule, std::string_view text)
{
  std::string allowed;
  const std::size_t count = rule.names.size();
  for (std::size_t i = 0; i < count; ++i) {
    if (text == rule.names[i]) {
      return i;
    }
    allowed += i == 0 ? "" : (i + 1 == count ? " or " : ", ");
    allowed += rule.names[i];
  }
  refuse(spec, text, "expected " + allowed);
}

std::vector<int> checked_cpu_list(const OptionSpec& spec, std::string_view text)
{
  const std::size_t cpus = online_cpus();
  std::vector<int> result;
  std::string_view rest = text;
  while (true) {
    const std::size_t comma = rest.find(',');
    const auto parsed = parse_unsigned(rest.substr(0, comma));
    if (parsed.status != NumberStatus::ok || parsed.value >= cpus) {
      refuse(spec, text,
             "expected comma-separated CPU numbers, each below " + std::to_string(cpus) +
                 " (the online CPUs)");
    }
    result.push_back(static_cast<int>(parsed.value));
    if (comma == std::string_view::npos) {
      return result;
    }
    rest.remove_prefix(comma + 1);
  }
}

void check_file_path(const OptionSpec& spec, const std::string& path)
{
  namespace fs = std::filesystem;
  if (path.empty()) {
    refuse(spec, path, "expected a file name");
  }
  if (path == "-") {
    return; // standard output
  }
  // Before anything opens it: a planted link must not be followed even to test it.
  if (const auto refusal_reason = output_file_refusal(path)) {
    refuse(spec, path, *refusal_reason);
  }
  const fs::path file(path);
  // Every check uses the error_code overloads: a name the system refuses (too long, a loop of
  // links) is the user's mistake to hear about in one line, not an exception's text.
  std::error_code error;
  const fs::file_status status = fs::status(file, error);
  if (refusal(error)) {
    refuse(spec, path, error.message());
  }
  if (fs::is_directory(status)) {
    refuse(spec, path, "is a directory, expected a file name");
  }
  const fs::path directory = file.has_parent_path() ? file.parent_path() : fs::path(".");
  const fs::file_status directory_status = fs::status(directory, error);
  if (refusal(error)) {
    refuse(spec, path, "directory '" + directory.string() + "': " + error.message());
  }
  if (!fs::exists(directory_status)) {
    refuse(spec, path, "directory '" + directory.string() + "' does not exist");
  }
  if (!fs::is_directory(directory_status)) {
    refuse(spec, path, "'" + directory.string() + "' is not a directory");
  }
  std::string reason;
  if (!can_write(path, reason)) {
    refuse(spec, path, "cannot write it (" + reason + ")");
  }
  // An existing file is replaced by renaming a new one over it
  // (src/core/process/file_replacement.cpp), which needs its directory writable too.
  const bool replaced = fs::is_regular_file(fs::symlink_status(file, error));
  if (replaced && ::faccessat(AT_FDCWD, directory.c_str(), W_OK | X_OK, AT_EACCESS) != 0) {
    refuse(spec, path,
           "cannot replace it: directory '" + directory.string() + "' is not writable (" +
               std::generic_category().message(errno) + ")");
  }
}

} // namespace netprof::options
