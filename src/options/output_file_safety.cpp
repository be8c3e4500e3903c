#include "output_file_safety.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <system_error>

namespace netprof::options {

namespace {

std::string directory_of(const std::string& path)
{
  const auto slash = path.rfind('/');
  if (slash == std::string::npos)
    return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

bool shared_directory(const std::string& directory)
{
  struct stat facts {};
  return ::stat(directory.c_str(), &facts) == 0 && (facts.st_mode & (S_IWGRP | S_IWOTH)) != 0;
}

} // namespace

std::optional<std::string> output_file_refusal(const std::string& path)
{
  struct stat entry {};
  if (::lstat(path.c_str(), &entry) != 0)
    return std::nullopt; // nothing there yet (or unreachable: the caller's checks say why)
  const std::string directory = directory_of(path);
  const bool shared = shared_directory(directory);
  if (S_ISLNK(entry.st_mode) && shared)
    return "it is a symbolic link in '" + directory +
           "', a directory others may write to, so anyone could have planted it; give a path "
           "that is not a link, or write to a directory only you can write to";
  if (S_ISLNK(entry.st_mode))
    return std::nullopt;
  const bool ours = entry.st_uid == ::geteuid();
  if (!ours && (S_ISREG(entry.st_mode) || shared))
    return "it belongs to another user (uid " + std::to_string(entry.st_uid) +
           "), and netprof never replaces another user's file; remove it or choose another name";
  return std::nullopt;
}

} // namespace netprof::options
