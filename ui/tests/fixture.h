// Shared by the UI tests: run the real CLI and fixtures (paths from ctest's
// environment) and keep the recordings in a temporary directory.
#pragma once

#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

namespace slsdbg::ui::testing {

inline QString slsdbg_cli() { return qEnvironmentVariable("SLSDBG"); }
inline QString program(const QString& name) { return qEnvironmentVariable("PROGRAMS") + "/" + name; }

struct Run {
  int rc = -1;
  QByteArray out;
};

inline Run run(const QString& exe, const QStringList& args, int timeout_ms = 60000) {
  QProcess p;
  p.setProcessChannelMode(QProcess::SeparateChannels);
  p.start(exe, args);
  p.waitForFinished(timeout_ms);
  Run r;
  r.rc = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
  r.out = p.readAllStandardOutput();
  if (r.rc != 0) qWarning("%s %s: exit %d: %s", qPrintable(exe), qPrintable(args.join(' ')), r.rc,
                          p.readAllStandardError().constData());
  return r;
}

}  // namespace slsdbg::ui::testing
