#pragma once

// The local pair's members as child processes of this same binary: started, their standard
// output held until the pair prints it, reaped. Each failure to start throws TransportError.

#include <optional>
#include <string>
#include <sys/types.h>
#include <vector>

namespace netprof {

// This process's executable, to start the members from.
std::string self_executable();
// Starts `program` with `args` and `environment`; `stdout_fd`: where the child's standard
// output goes, -1 for ours.
pid_t spawn(const std::string& program, std::vector<std::string> args,
            const std::vector<std::string>& environment, int stdout_fd = -1);
// A file in memory that holds a child's standard output until the pair prints it.
int held_output_file();
// Copies what `fd` holds, from its start, to our standard output.
void print_file(int fd);
// Exit status of a finished child in our documented terms (a crash counts as a runtime error);
// none while it runs.
std::optional<int> reap(pid_t pid);

} // namespace netprof
