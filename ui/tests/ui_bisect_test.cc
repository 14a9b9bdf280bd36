// Bisect from the UI (its Bisect action runs `slsdbg bisect` off the UI
// thread) finds the same first bad checkpoint as the CLI, marks it on the
// timeline and selects it.
#include <QJsonDocument>
#include <QJsonObject>
#include <QSignalSpy>

#include "ui/app/main_window.h"
#include "ui/tests/fixture.h"

using namespace slsdbg::ui;
using namespace slsdbg::ui::testing;

class BisectTest : public QObject {
  Q_OBJECT
 private slots:
  void ui_and_cli_agree() {
    qputenv("SLSDBG_UI_NO_DIALOGS", "1");
    QTemporaryDir tmp;
    QString rec = tmp.filePath("bank.rec");
    // 600k transfers, the planted bug at 400k: a few dozen 5 ms checkpoints.
    auto r = run(slsdbg_cli(), {"record", "-o", rec, "--interval", "5", "--", program("bisect_bank"), "600000", "400000"});
    QCOMPARE(r.rc, 1);  // the fixture exits 1: money was lost
    const QString expr = "bank.acct.checking + bank.acct.savings == total_expected";
    auto cli = run(slsdbg_cli(), {"bisect", rec, "--expr", expr, "--json", "--no-refine"}, 90000);
    QCOMPARE(cli.rc, 0);
    qint64 want = QJsonDocument::fromJson(cli.out).object()["first_bad"].toObject()["checkpoint"].toInteger(-1);
    QVERIFY(want > 0);

    auto h = open_history(rec.toStdString());
    QVERIFY(h.ok());
    MainWindow w(std::move(*h));
    QSignalSpy done(&w, &MainWindow::bisect_finished);
    w.start_bisect({"--expr", expr});
    QVERIFY(done.wait(90000));
    QVERIFY2(done.at(0).at(0).toBool(), qPrintable(done.at(0).at(1).toString()));
    QCOMPARE(qint64(*w.bisect_result()), want);
    QCOMPARE(qint64(w.current()), want);
  }
};

QTEST_MAIN(BisectTest)
#include "ui_bisect_test.moc"
