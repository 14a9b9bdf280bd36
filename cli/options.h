// Every command parses its arguments through Options (CLI11 underneath), so
// that --help, usage errors and exit codes come from one place:
//   --help / -h        the command's usage text on stdout, exit 0
//   a usage error      one line "slsdbg: CMD: PROBLEM (see slsdbg CMD --help)", exit 2
// Runtime failures are the command's own: fail() in command.h, exit 1.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace slsdbg::cli {

// What follows the options and is not parsed by us.
enum class Rest {
  None,           // every argument is ours
  AfterDashDash,  // everything after the first `--` (replay: GDB's arguments)
  Program,        // after `--`, or from the first word that is not an option (record: PROGRAM ARGS...)
};

class Options {
 public:
  explicit Options(std::string command, Rest rest = Rest::None);
  Options(const Options&) = delete;
  Options& operator=(const Options&) = delete;

  CLI::App& app() { return app_; }

  // REC: a path, `latest` or a name under $SLSDBG_DIR. Required unless told.
  CLI::Option* recording(std::string& rec);
  // A boolean switch.
  CLI::Option* flag(const std::string& names, bool& out);
  // An option taking one word; `what` names it in errors ("a file name").
  CLI::Option* text(const std::string& names, std::string& out, const std::string& what);
  // A repeatable option taking one word each time.
  CLI::Option* texts(const std::string& names, std::vector<std::string>& out, const std::string& what);
  // A non-negative decimal number (checkpoint ids, counts).
  CLI::Option* number(const std::string& names, uint64_t& out, const std::string& what);
  // A number of seconds (non-negative, decimal fraction allowed).
  CLI::Option* seconds(const std::string& names, double& out);

  // The text a missing required option or positional is reported with.
  void when_missing(CLI::Option* option, std::string problem) { missing_[option] = std::move(problem); }

  // Parses `args`. nullopt: go on. Otherwise the exit code to return now,
  // after the usage text (--help) or a one-line usage error was printed.
  std::optional<int> parse(const std::vector<std::string>& args);

  // The arguments after the options (see Rest).
  const std::vector<std::string>& rest() const { return rest_; }

  // A usage problem found after parsing (options that do not go together):
  // prints it like a parse error and returns the usage exit code.
  int usage_error(const std::string& problem) const;

 private:
  std::string describe(const CLI::ParseError& e);

  std::string command_;
  Rest rest_mode_;
  CLI::App app_;
  std::map<const CLI::Option*, std::string> missing_;
  std::vector<std::string> given_;  // the words parsed, for error messages
  std::vector<std::string> rest_;
};

}  // namespace slsdbg::cli
