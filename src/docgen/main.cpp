// netprof_docgen: writes netprof(1) or its bash completion from the option table and the
// transport registry. Run by the build (src/docgen/CMakeLists.txt), never installed.

#include "cli/bash_completion.hpp"
#include "cli/man_page.hpp"

#include <netprof/registry.hpp>

#include <fstream>
#include <iostream>
#include <string>

int main(int argc, char** argv)
{
  const std::string what = argc == 3 ? argv[1] : "";
  if (what != "man" && what != "bash") {
    std::cerr << "usage: netprof_docgen man|bash FILE\n";
    return 2;
  }
  netprof::TransportRegistry registry;
  netprof::register_builtin_transports(registry);
  const std::string text =
      what == "man" ? netprof::cli::man_page(registry) : netprof::cli::bash_completion(registry);
  std::ofstream out(argv[2], std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) {
    std::cerr << "netprof_docgen: cannot write " << argv[2] << "\n";
    return 3;
  }
  return 0;
}
