// slsdbg-ui [REC] [--at K] [--bisect EXPR] [--screenshot FILE.png]: the desktop UI. With
// --screenshot it renders the main window at checkpoint K and exits (works
// under QT_QPA_PLATFORM=offscreen, no display needed).
#include <QApplication>
#include <QFileDialog>
#include <QMessageBox>
#include <QEventLoop>
#include <QTimer>
#include <cstdio>

#include "ui/app/main_window.h"

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  QStringList args = app.arguments().mid(1);
  QString rec, shot, bisect;
  qulonglong at = 0;
  for (int i = 0; i < args.size(); ++i) {
    const QString& a = args[i];
    if ((a == "--at" || a == "--screenshot" || a == "--bisect") && i + 1 >= args.size()) {
      std::fprintf(stderr, "slsdbg-ui: %s needs a value\n", qPrintable(a));
      return 2;
    }
    if (a == "--at") {
      bool ok = false;
      at = args[++i].toULongLong(&ok);
      if (!ok) {
        std::fprintf(stderr, "slsdbg-ui: --at needs a checkpoint id, got '%s'\n", qPrintable(args[i]));
        return 2;
      }
    } else if (a == "--bisect") {
      bisect = args[++i];
    } else if (a == "--screenshot") {
      shot = args[++i];
    } else if (a == "-h" || a == "--help") {
      std::printf("usage: slsdbg-ui [REC] [--at K] [--bisect EXPR] [--screenshot FILE.png]\n");
      return 0;
    } else if (a.startsWith("-") || !rec.isEmpty()) {
      std::fprintf(stderr, "slsdbg-ui: unexpected argument '%s'\nusage: slsdbg-ui [REC] [--at K] [--bisect EXPR] [--screenshot FILE.png]\n",
                   qPrintable(a));
      return 2;
    } else {
      rec = a;
    }
  }
  if (rec.isEmpty()) {
    if (!shot.isEmpty()) {
      std::fprintf(stderr, "slsdbg-ui: --screenshot needs a recording\n");
      return 2;
    }
    rec = QFileDialog::getExistingDirectory(nullptr, "Open a recording");
    if (rec.isEmpty()) return 1;
  }
  auto history = slsdbg::ui::open_history(rec.toStdString());
  if (!history.ok()) {
    std::fprintf(stderr, "slsdbg-ui: %s\n", history.error().message.c_str());
    if (shot.isEmpty()) QMessageBox::critical(nullptr, "slsdbg-ui", QString::fromStdString(history.error().message));
    return 1;
  }
  if (at >= history->checkpoints.size()) {
    std::fprintf(stderr, "slsdbg-ui: no checkpoint %llu (the recording has 0..%zu)\n", at, history->checkpoints.size() - 1);
    return 2;
  }
  slsdbg::ui::MainWindow window(std::move(*history));
  window.go_to(at);
  window.show();
  if (!bisect.isEmpty()) {
    // Bisect first (the expression over globals, as `slsdbg bisect --expr`);
    // the screenshot then shows its result marked and selected.
    QEventLoop wait;
    QObject::connect(&window, &slsdbg::ui::MainWindow::bisect_finished, &wait, &QEventLoop::quit);
    window.start_bisect({"--expr", bisect});
    if (!shot.isEmpty()) wait.exec();
  }
  if (!shot.isEmpty()) {
    app.processEvents();
    if (!window.grab().save(shot)) {
      std::fprintf(stderr, "slsdbg-ui: cannot write %s\n", qPrintable(shot));
      return 1;
    }
    return 0;
  }
  return app.exec();
}
