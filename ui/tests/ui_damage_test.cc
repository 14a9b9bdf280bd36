// A damaged recording gives an error dialog, not a crash: the catalog
// truncated (open fails) and a page block overwritten (a pane fails).
#include <QApplication>
#include <QDir>
#include <QFile>
#include <QMessageBox>
#include <QTimer>

#include "ui/app/main_window.h"
#include "ui/tests/fixture.h"

using namespace slsdbg::ui;
using namespace slsdbg::ui::testing;

class DamageTest : public QObject {
  Q_OBJECT
  QTemporaryDir tmp_;

  QString record(const QString& name) {
    QString rec = tmp_.filePath(name);
    auto r = run(slsdbg_cli(), {"record", "-o", rec, "--interval", "10", "--", program("dump_chain"), "spin", "10000000"});
    return r.rc == 0 ? rec : QString();
  }

 private slots:
  void truncated_catalog_is_an_error_message() {
    QString rec = record("a.rec");
    QVERIFY(!rec.isEmpty());
    QFile db(rec + "/catalog.db");
    QVERIFY(db.resize(1000));
    auto h = open_history(rec.toStdString());
    QVERIFY(!h.ok());
    QVERIFY(h.error().message.find(rec.toStdString()) != std::string::npos);
    // The executable says so on stderr and exits 1 (headless).
    auto r = run(QCoreApplication::applicationDirPath() + "/slsdbg-ui",
                 {rec, "--screenshot", tmp_.filePath("x.png")});
    QCOMPARE(r.rc, 1);
  }

  void overwritten_pages_show_a_dialog() {
    QString rec = record("b.rec");
    QVERIFY(!rec.isEmpty());
    auto h = open_history(rec.toStdString());
    QVERIFY(h.ok());
    // Scribble over every page extent: checksums fail on read.
    for (const auto& f : QDir(rec + "/pages").entryInfoList(QDir::Files)) {
      QFile x(f.filePath());
      QVERIFY(x.open(QIODevice::ReadWrite));
      QByteArray junk(int(std::min<qint64>(x.size(), 8 << 20)), '\x5a');
      x.write(junk);
    }
    QString seen;
    auto close_dialog = [&] {
      for (QWidget* w : QApplication::topLevelWidgets())
        if (auto* box = qobject_cast<QMessageBox*>(w); box && box->isVisible()) {
          seen = box->text();
          box->accept();
        }
    };
    QTimer poll;
    connect(&poll, &QTimer::timeout, close_dialog);
    poll.start(50);
    MainWindow w(std::move(*h));
    w.go_to(1);
    poll.stop();
    QVERIFY2(!seen.isEmpty(), "no error dialog");
    QVERIFY2(seen.contains("checkpoint"), qPrintable(seen));
  }
};

QTEST_MAIN(DamageTest)
#include "ui_damage_test.moc"
