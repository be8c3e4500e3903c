#include "core/roles/role_settings.hpp"

namespace netprof {

VerdictCriteria verdict_criteria(const RunConfig& config)
{
  VerdictCriteria criteria;
  criteria.max_loss_percent = config.max_loss_percent;
  criteria.wait_seconds = config.wait_seconds;
  criteria.subscribers = config.subscribers;
  criteria.keyed = !config.key_file.empty();
  criteria.mode = config.mode;
  criteria.send_hz = config.send_hz;
  criteria.count = config.count;
  criteria.test_seconds = config.test_seconds;
  criteria.probe_hz = config.probe_hz;
  criteria.probe_timeout_seconds = config.probe_timeout_seconds;
  criteria.idle_timeout_seconds = config.idle_timeout_seconds;
  return criteria;
}

SubscriberSettings subscriber_settings(const RunConfig& config)
{
  SubscriberSettings settings;
  settings.id = config.id;
  settings.payload_size = config.payload_size;
  settings.wait_strategy = config.wait_strategy;
  settings.shared_secret = config.shared_secret;
  settings.drop_percent = config.drop_percent;
  settings.drop_seed = config.drop_seed;
  if (config.interval_seconds)
    settings.interval = from_seconds(*config.interval_seconds);
  settings.interval_lines = interval_lines(config);
  settings.pair_layout = config.pair_layout;
  settings.wait = from_seconds(config.wait_seconds);
  settings.idle_timeout = from_seconds(config.idle_timeout_seconds);
  return settings;
}

std::FILE* interval_lines(const RunConfig& config) noexcept
{
  return config.quiet ? nullptr : (json_on_stdout(config) ? stderr : stdout);
}

} // namespace netprof
