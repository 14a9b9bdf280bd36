#include "cli/options.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "cli/command.h"

namespace slsdbg::cli {
namespace {

// Decimal only: CLI11's own integer conversion reads "010" as octal and "-1"
// as a huge unsigned number.
CLI::Validator decimal(std::string what) {
  return CLI::Validator(
      [what](std::string& s) -> std::string {
        if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos)
          return "needs " + what + ", got '" + s + "'";
        errno = 0;
        (void)std::strtoull(s.c_str(), nullptr, 10);
        if (errno == ERANGE) return "'" + s + "' is too large";
        return "";
      },
      "");
}

CLI::Validator non_negative_seconds() {
  return CLI::Validator(
      [](std::string& s) -> std::string {
        char* end = nullptr;
        const double v = std::strtod(s.c_str(), &end);
        if (s.empty() || *end || !std::isfinite(v) || v < 0) return "needs seconds (e.g. 0.5), got '" + s + "'";
        return "";
      },
      "");
}

const char* usage_of(const std::string& command) {
  for (const auto& c : commands())
    if (command == c.name) return c.usage;
  return "";
}

}  // namespace

Options::Options(std::string command, Rest rest)
    : command_(std::move(command)), rest_mode_(rest), app_("", "slsdbg " + command_) {
  app_.set_help_flag("-h,--help");
  if (rest_mode_ == Rest::Program) app_.prefix_command();
}

CLI::Option* Options::recording(std::string& rec) {
  CLI::Option* o = app_.add_option("REC", rec)->required();
  when_missing(o, "missing recording directory REC");
  return o;
}

CLI::Option* Options::flag(const std::string& names, bool& out) { return app_.add_flag(names, out); }

CLI::Option* Options::text(const std::string& names, std::string& out, const std::string& what) {
  return app_.add_option(names, out)->type_name(what);
}

CLI::Option* Options::texts(const std::string& names, std::vector<std::string>& out, const std::string& what) {
  return app_.add_option(names, out)->type_name(what)->allow_extra_args(false);
}

CLI::Option* Options::number(const std::string& names, uint64_t& out, const std::string& what) {
  return app_
      .add_option_function<std::string>(names, [&out](const std::string& s) { out = std::strtoull(s.c_str(), nullptr, 10); })
      ->check(decimal(what))
      ->type_name(what);
}

CLI::Option* Options::seconds(const std::string& names, double& out) {
  return app_.add_option_function<std::string>(names, [&out](const std::string& s) { out = std::strtod(s.c_str(), nullptr); })
      ->check(non_negative_seconds())
      ->type_name("seconds");
}

std::optional<int> Options::parse(const std::vector<std::string>& args) {
  std::vector<std::string> ours = args;
  rest_.clear();
  if (rest_mode_ == Rest::AfterDashDash) {
    auto dd = std::find(ours.begin(), ours.end(), "--");
    if (dd != ours.end()) {
      rest_.assign(dd + 1, ours.end());
      ours.erase(dd, ours.end());
    }
  }
  given_ = ours;
  std::reverse(ours.begin(), ours.end());  // CLI11 takes them last first
  try {
    app_.parse(ours);
  } catch (const CLI::CallForHelp&) {
    std::fputs(usage_of(command_), stdout);
    return kExitOk;
  } catch (const CLI::ParseError& e) {
    return usage_error(describe(e));
  }
  if (rest_mode_ == Rest::Program) {
    // prefix_command(): the first word CLI11 did not take and all after it.
    rest_ = app_.remaining();
    if (!rest_.empty() && rest_.front() == "--") rest_.erase(rest_.begin());
    else if (!rest_.empty() && rest_.front().size() > 1 && rest_.front()[0] == '-')
      return usage_error("unknown option '" + rest_.front() + "'");
  }
  return std::nullopt;
}

std::string Options::describe(const CLI::ParseError& e) {
  // A word no option took comes first: CLI11 checks required options before
  // extras, but `info --frob` is about --frob.
  if (dynamic_cast<const CLI::ExtrasError*>(&e) || dynamic_cast<const CLI::RequiredError*>(&e)) {
    const auto extra = app_.remaining();
    if (!extra.empty()) {
      const std::string& x = extra.front();
      return (x.size() > 1 && x[0] == '-' ? "unknown option '" : "unexpected argument '") + x + "'";
    }
  }
  if (dynamic_cast<const CLI::RequiredError*>(&e)) {
    for (const CLI::Option* o : app_.get_options()) {
      if (!o->get_required() || o->count() > 0) continue;
      auto m = missing_.find(o);
      return m != missing_.end() ? m->second : "missing " + o->get_name();
    }
  }
  if (dynamic_cast<const CLI::ArgumentMismatch*>(&e)) {
    // An option given without its value: the word is there, the value not.
    for (const std::string& word : given_)
      for (const CLI::Option* o : app_.get_options())
        if (!o->get_positional() && o->count() == 0 && o->check_name(word))
          return word + " needs " + o->get_type_name();
  }
  return e.what();
}

int Options::usage_error(const std::string& problem) const {
  return fail(command_ + ": " + problem + " (see slsdbg " + command_ + " --help)", kExitUsage);
}

}  // namespace slsdbg::cli
