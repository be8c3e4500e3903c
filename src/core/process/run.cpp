#include "core/process/run.hpp"

#include "core/process/local_pair.hpp"
#include "core/process/ready_signal.hpp"
#include "core/process/role_command.hpp"
#include "core/process/stop_flag.hpp"
#include "core/process/thread_pair.hpp"
#include "core/scheduling/timer_slack.hpp"

#include <netprof/cli.hpp>
#include <netprof/errors.hpp>

#include <ostream>

namespace netprof {

int run(int argc, const char* const argv[], std::ostream& out, std::ostream& err)
{
  TransportRegistry registry;
  register_builtin_transports(registry);

  ParsedCommandLine parsed;
  // The publisher of a process pair knows its parent by the pipe it is to tell it is ready on.
  const PairLayout layout = local_pair_parent_waits() ? PairLayout::processes : PairLayout::none;
  const auto parse = [&] {
    parsed = parse_command_line(argc, argv, registry, layout);
    return 0;
  };
  if (const int status = exit_status_of(err, parse); status != 0)
    return status;
  if (parsed.action != ParsedCommandLine::Action::run) {
    out << parsed.text;
    return static_cast<int>(ExitStatus::passed);
  }
  const RunConfig& config = parsed.config;
  // Before any thread starts: each new thread begins with its creator's slack. Each role
  // (run_role_command) and helper thread sets it again for itself.
  use_minimal_timer_slack();
  install_stop_signal_handlers(config.local_pair ? SecondInterrupt::repeats_the_first
                                                 : SecondInterrupt::ends_the_process);

  return exit_status_of(err, [&] {
    if (config.local_pair && config.threads)
      return run_thread_pair(config, parsed.local_pair_options, parsed.plan, out, err);
    if (config.local_pair)
      return run_local_pair(config, parsed.local_pair_options, parsed.plan);
    return run_role_command(parsed, {process_stop_flag(), signal_ready}, out, err);
  });
}

} // namespace netprof
