// The panes of the main window against the CLI and GDB on the same
// checkpoint of a real recording of dump_chain (spinning in pause_here under dump_gamma).
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLineEdit>
#include <QTableWidget>

#include "ui/app/main_window.h"
#include "ui/tests/fixture.h"

using namespace slsdbg::ui;
using namespace slsdbg::ui::testing;

class WindowTest : public QObject {
  Q_OBJECT
  QTemporaryDir tmp_;
  QString rec_;
  uint64_t k_ = 0;
  std::unique_ptr<MainWindow> w_;

  QString reg(const QString& name) {
    auto* t = w_->registers();
    for (int i = 0; i < t->rowCount(); ++i)
      if (t->item(i, 0)->text() == name) return t->item(i, 1)->text();
    return {};
  }

 private slots:
  void initTestCase() {
    rec_ = tmp_.filePath("chain.rec");
    // 0.03-0.2 s of spin, CPU by CPU: at least 5 ticks of 10 ms on the fastest (AMD EPYC VMs: 60M took 26 ms, 4 checkpoints).
    auto r = run(slsdbg_cli(), {"record", "-o", rec_, "--interval", "10", "--", program("dump_chain"), "spin", "400000000"});
    QCOMPARE(r.rc, 0);
    auto h = open_history(rec_.toStdString());
    QVERIFY2(h.ok(), h.ok() ? "" : h.error().message.c_str());
    QVERIFY(h->checkpoints.size() >= 5);
    k_ = h->checkpoints.size() - 2;  // inside the spin, before exit
    w_ = std::make_unique<MainWindow>(std::move(*h));
    w_->go_to(k_);
    QCOMPARE(w_->current(), k_);
  }

  void backtrace_and_disassembly_equal_the_cli() {
    auto r = run(slsdbg_cli(), {"backtrace", rec_, "--at", QString::number(k_), "--disasm", "--json"});
    QCOMPARE(r.rc, 0);
    auto thread = QJsonDocument::fromJson(r.out).object()["threads"].toArray()[0].toObject();
    auto frames = thread["frames"].toArray();
    const auto& mine = w_->moment().backtraces.at(0).frames;
    QCOMPARE(size_t(frames.size()), mine.size());
    for (int i = 0; i < frames.size(); ++i)
      QCOMPARE(frames[i].toObject()["pc"].toString().toULongLong(nullptr, 16), mine[i].pc);
    QVERIFY(w_->backtrace_text().contains("dump_gamma"));
    QVERIFY(w_->backtrace_text().contains("dump_chain.c:"));
    auto disasm = thread["disasm"].toArray();
    QVERIFY(!disasm.isEmpty());
    for (const auto& v : disasm) {
      auto o = v.toObject();
      QString line = QString("0x%1  %2").arg(o["address"].toString().toULongLong(nullptr, 16), 16, 16, QChar('0'))
                         .arg(o["text"].toString());
      QVERIFY2(w_->disasm_text().contains(line), qPrintable(line));
    }
  }

  void registers_equal_gdb_on_a_core() {
    QString core = tmp_.filePath("k.core");
    QCOMPARE(run(slsdbg_cli(), {"dump", rec_, "--at", QString::number(k_), "-o", core}).rc, 0);
    QStringList names{"rip", "rsp", "rbp", "rbx", "r12", "rax"};
    QStringList args{"-batch", "-nx", "-ex", "set debuginfod enabled off", program("dump_chain"), core};
    for (const auto& n : names) args << "-ex" << "printf \"%016lx\\n\", $" + n;
    auto r = run("gdb", args);
    QCOMPARE(r.rc, 0);
    QStringList values;
    for (const auto& line : QString::fromUtf8(r.out).split('\n'))
      if (line.size() == 16) values << line;
    QCOMPARE(values.size(), names.size());
    for (int i = 0; i < names.size(); ++i) QCOMPARE(reg(names[i]), "0x" + values[i]);
  }

  void memory_view_reads_the_stores_bytes() {
    auto reader = slsdbg::store::RecordingReader::open(rec_.toStdString());
    QVERIFY(reader.ok());
    auto* box = w_->findChild<QLineEdit*>();
    QVERIFY(box);
    box->setText("rsp");
    QTest::keyClick(box, Qt::Key_Return);
    const auto& v = w_->memory_view();
    QCOMPARE(v.addr, w_->moment().state.threads[0].regs.rsp & ~uint64_t(15));
    std::vector<uint8_t> want(v.bytes.size());
    QVERIFY((*reader)->read_memory(slsdbg::CheckpointId(k_), v.addr, want).ok());
    QVERIFY(want == v.bytes);
    // Highlighted bytes are exactly those that differ at the checkpoint before.
    std::vector<uint8_t> before(v.bytes.size());
    QVERIFY((*reader)->read_memory(slsdbg::CheckpointId(k_ - 1), v.addr, before).ok());
    for (size_t i = 0; i < before.size(); ++i) QCOMPARE(bool(v.changed[i]), before[i] != want[i]);
    QVERIFY(w_->memory_text().contains(QString("%1").arg(v.addr, 12, 16, QChar('0'))));
    // The global counter (49 inside dump_gamma) through the address box.
    auto r = run("nm", {program("dump_chain")});
    QString line;
    for (const auto& l : QString::fromUtf8(r.out).split('\n'))
      if (l.endsWith(" dump_global_counter")) line = l;
    QVERIFY(!line.isEmpty());
    // A PIE: the runtime address is the link address plus the load bias of
    // the first mapping of the executable.
    uint64_t bias = 0;
    for (const auto& m : w_->moment().state.mappings)
      if (m.path == w_->moment().state.exe && m.file_offset == 0) { bias = m.start; break; }
    uint64_t addr = bias + line.section(' ', 0, 0).toULongLong(nullptr, 16);
    w_->show_memory(addr);
    uint64_t value = 0;
    std::memcpy(&value, w_->memory_view().bytes.data() + (addr - w_->memory_view().addr), 8);
    QCOMPARE(value, uint64_t(49));
  }

  void screenshot_renders() {
    w_->show();
    QImage img = w_->grab().toImage();
    QVERIFY(img.width() > 800 && img.height() > 500);
  }

  void stepping_moves_the_selection() {
    w_->go_to(k_);
    w_->previous();
    QCOMPARE(w_->current(), k_ - 1);
    w_->next();
    QCOMPARE(w_->current(), k_);
  }
};

QTEST_MAIN(WindowTest)
#include "ui_window_test.moc"
