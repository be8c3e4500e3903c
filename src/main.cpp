#include "core/process/run.hpp"

#include <iostream>

int main(int argc, char** argv)
{
  return netprof::run(argc, argv, std::cout, std::cerr);
}
