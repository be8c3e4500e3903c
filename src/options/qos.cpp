#include "number_parsing.hpp"

#include <netprof/errors.hpp>
#include <netprof/qos.hpp>

#include <string>

namespace netprof {

namespace {

constexpr std::string_view keep_last = "keep-last";
constexpr std::string_view keep_all = "keep-all";

[[noreturn]] void invalid(std::string_view option, std::string_view text, std::string_view why)
{
  throw UsageError("invalid value '" + std::string(text) + "' for --" + std::string(option) + ": " +
                   std::string(why));
}

constexpr std::string_view history_expected =
    "expected keep-last, keep-last:N (N messages, 1 to 2147483647) or keep-all";

std::uint32_t parse_depth(std::string_view whole, std::string_view digits)
{
  const auto parsed = options::parse_unsigned(digits);
  if (parsed.status == options::NumberStatus::malformed)
    invalid("history", whole, history_expected);
  // Out of range reads as 0, so this comes first.
  if (parsed.status == options::NumberStatus::out_of_range || parsed.value > max_history_depth)
    invalid("history", whole, "depth too large (at most 2147483647 messages)");
  if (parsed.value == 0)
    invalid("history", whole,
            "a depth of 0 keeps nothing: give keep-last:N with N from 1 to 2147483647");
  return static_cast<std::uint32_t>(parsed.value);
}

} // namespace

History parse_history(std::string_view text)
{
  if (text == keep_all)
    return {HistoryKind::keep_all, std::nullopt};
  if (text == keep_last)
    return {HistoryKind::keep_last, std::nullopt};
  if (text.starts_with(keep_all) && text.size() > keep_all.size() && text[keep_all.size()] == ':')
    invalid("history", text, "keep-all takes no depth (it keeps every message): give keep-all");
  if (text.starts_with(keep_last) && text.size() > keep_last.size() &&
      text[keep_last.size()] == ':')
    return {HistoryKind::keep_last, parse_depth(text, text.substr(keep_last.size() + 1))};
  invalid("history", text, history_expected);
}

const char* to_string(Reliability reliability) noexcept
{
  return reliability == Reliability::reliable ? "reliable" : "best-effort";
}

const char* to_string(HistoryKind kind) noexcept
{
  switch (kind) {
  case HistoryKind::keep_last:
    return "keep-last";
  case HistoryKind::keep_all:
    return "keep-all";
  case HistoryKind::none:
    break;
  }
  return "none";
}

const char* to_string(QosSetBy set_by) noexcept
{
  switch (set_by) {
  case QosSetBy::publisher:
    return "publisher";
  case QosSetBy::every_process:
    return "every process";
  case QosSetBy::transport:
    break;
  }
  return "transport";
}

std::string to_string(const History& history)
{
  std::string text = to_string(history.kind);
  if (history.depth) {
    text += ':';
    text += std::to_string(*history.depth);
  }
  return text;
}

std::string to_string(const QosRequest& request)
{
  if (request.empty())
    return "none";
  std::string text;
  if (request.reliability)
    text = qos::reliability_option(*request.reliability);
  if (request.history) {
    if (!text.empty())
      text += ' ';
    text += qos::history_option(*request.history);
  }
  return text;
}

namespace qos {

std::string reliability_option(Reliability reliability)
{
  return std::string("--reliability ") + to_string(reliability);
}

std::string history_option(const History& history)
{
  std::string text = "--history ";
  text += to_string(history);
  return text;
}

void refuse(std::string_view option_and_value, std::string_view transport, std::string_view why)
{
  throw UsageError(std::string(option_and_value) + " is not available on " +
                   std::string(transport) + ": " + std::string(why));
}

std::optional<bool> publisher_waits(const QosRequest& request, std::string_view transport)
{
  const std::optional<bool> by_reliability =
      request.reliability ? std::optional(*request.reliability == Reliability::reliable)
                          : std::nullopt;
  const std::optional<bool> by_history =
      request.history ? std::optional(request.history->kind == HistoryKind::keep_all)
                      : std::nullopt;
  if (by_reliability && by_history && *by_reliability != *by_history)
    throw UsageError(to_string(request) + " contradict each other on " + std::string(transport) +
                     ": its publisher either waits for a reader that lags (reliable, keep-all) "
                     "or lets it lose messages (best-effort, keep-last)");
  return by_reliability ? by_reliability : by_history;
}

EffectiveQos always_reliable(const QosRequest& request, std::string_view transport,
                             std::string_view why_it_cannot_lose, std::string meaning)
{
  if (request.reliability == Reliability::best_effort)
    refuse(reliability_option(Reliability::best_effort), transport, why_it_cannot_lose);
  if (request.history && request.history->kind == HistoryKind::keep_last)
    refuse(history_option(*request.history), transport, why_it_cannot_lose);
  EffectiveQos effective;
  effective.reliability = Reliability::reliable;
  effective.history = HistoryKind::keep_all;
  effective.set_by = QosSetBy::transport;
  effective.meaning = std::move(meaning);
  return effective;
}

} // namespace qos

} // namespace netprof
