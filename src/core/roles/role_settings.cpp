#include "core/roles/role_settings.hpp"

namespace netprof {

namespace {

RoleSettings role_settings(const RunConfig& config)
{
  RoleSettings settings;
  settings.wait_strategy = config.wait_strategy;
  settings.shared_secret = config.shared_secret;
  if (config.interval_seconds)
    settings.interval = from_seconds(*config.interval_seconds);
  // Stdout, or stderr when the JSON report has stdout (--json -).
  if (!config.quiet)
    settings.interval_lines = json_on_stdout(config) ? stderr : stdout;
  settings.wait = from_seconds(config.wait_seconds);
  return settings;
}

} // namespace

Pacing pacing(const RunConfig& config)
{
  return {.mode = config.mode,
          .send_hz = config.send_hz,
          .pace = config.pace,
          .probe_hz = config.probe_hz};
}

SendSettings send_settings(const RunConfig& config)
{
  return {.pacing = pacing(config),
          .fanout = config.fanout,
          .phases = {.warmup_seconds = config.warmup_seconds,
                     .warmup_count = config.warmup_count,
                     .test_seconds = config.test_seconds,
                     .count = config.count,
                     .count_received = config.count_received},
          .data = {.payload_size = config.payload_size,
                   .num_vars = config.num_vars,
                   .echo = config.echo,
                   .payload_fill = config.payload_fill},
          .probe_timeout = from_seconds(config.probe_timeout_seconds),
          .back_pressure_limit = from_seconds(config.wait_seconds)};
}

PublisherSettings publisher_settings(const RunConfig& config)
{
  PublisherSettings settings;
  static_cast<RoleSettings&>(settings) = role_settings(config);
  settings.subscribers = config.subscribers;
  settings.sending = send_settings(config);
  return settings;
}

SubscriberSettings subscriber_settings(const RunConfig& config)
{
  SubscriberSettings settings;
  static_cast<RoleSettings&>(settings) = role_settings(config);
  settings.id = config.id;
  settings.payload_size = config.payload_size;
  settings.drop_percent = config.drop_percent;
  settings.drop_seed = config.drop_seed;
  settings.pair_layout = config.pair_layout;
  settings.idle_timeout = from_seconds(config.idle_timeout_seconds);
  return settings;
}

VerdictCriteria verdict_criteria(const RunConfig& config)
{
  // The verdict judges the rates reached against what the send loop was asked for.
  const SendSettings sending = send_settings(config);
  return {.max_loss_percent = config.max_loss_percent,
          .subscribers = config.subscribers,
          .keyed = !config.key_file.empty(),
          .wait_seconds = config.wait_seconds,
          .probe_timeout_seconds = config.probe_timeout_seconds,
          .idle_timeout_seconds = config.idle_timeout_seconds,
          .pacing = sending.pacing,
          .phases = sending.phases,
          .fanout = config.fanout};
}

} // namespace netprof
