#include "ui/app/main_window.h"

#include <QApplication>
#include <QCoreApplication>
#include <QDir>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QHeaderView>
#include <QInputDialog>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QProgressDialog>
#include <QShortcut>
#include <QSplitter>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableWidget>
#include <QTextEdit>
#include <QToolBar>
#include <QVBoxLayout>

#include "ui/app/timeline.h"

namespace slsdbg::ui {

namespace {
QString hex(uint64_t v) { return QString("0x%1").arg(v, 16, 16, QChar('0')); }

void set_if_changed(QPlainTextEdit* t, const QString& text) {
  if (t->toPlainText() != text) t->setPlainText(text);
}

QPlainTextEdit* mono_text() {
  auto* t = new QPlainTextEdit;
  t->setReadOnly(true);
  t->setLineWrapMode(QPlainTextEdit::NoWrap);
  t->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  return t;
}
}  // namespace

MainWindow::MainWindow(History history, QWidget* parent) : QMainWindow(parent), h_(std::move(history)) {
  setWindowTitle(QString("slsdbg-ui — %1 (%2)").arg(QString::fromStdString(h_.dir), QString::fromStdString(h_.reader->meta().program)));
  const QFont mono = QFontDatabase::systemFont(QFontDatabase::FixedFont);

  timeline_ = new Timeline(h_);
  connect(timeline_, &Timeline::picked, this, &MainWindow::go_to);

  regs_ = new QTableWidget(0, 2);
  regs_->setHorizontalHeaderLabels({"register", "value"});
  regs_->verticalHeader()->hide();
  regs_->horizontalHeader()->setStretchLastSection(true);
  regs_->setFont(mono);
  regs_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  regs_->verticalHeader()->setDefaultSectionSize(18);

  backtrace_ = mono_text();
  disasm_ = mono_text();
  source_ = new QTextEdit;
  source_->setReadOnly(true);
  source_->setFont(mono);
  source_->setLineWrapMode(QTextEdit::NoWrap);
  memory_ = new QTextEdit;
  memory_->setReadOnly(true);
  memory_->setFont(mono);
  address_ = new QLineEdit;
  address_->setPlaceholderText("address (hex), e.g. rsp or 0x7ffc...");
  connect(address_, &QLineEdit::returnPressed, this, [this] {
    QString text = address_->text().trimmed();
    follow_rsp_ = text == "rsp";
    for (const auto& r : moment_.registers)
      if (text == QString::fromStdString(r.name)) return show_memory(r.value);
    bool ok = false;
    uint64_t a = text.toULongLong(&ok, 16);
    if (ok) show_memory(a);
    else status_->setText("not an address: " + text);
  });
  events_ = mono_text();
  process_ = mono_text();

  auto* memory_box = new QWidget;
  auto* ml = new QVBoxLayout(memory_box);
  ml->setContentsMargins(0, 0, 0, 0);
  ml->addWidget(address_);
  ml->addWidget(memory_);

  auto* left_tabs = new QTabWidget;
  left_tabs->addTab(source_, "Source");
  left_tabs->addTab(events_, "Events");
  left_tabs->addTab(process_, "Threads / maps / files");
  auto titled = [](QWidget* w, const QString& title) {
    auto* tabs = new QTabWidget;
    tabs->addTab(w, title);
    return tabs;
  };
  auto* mid = new QSplitter(Qt::Vertical);
  mid->addWidget(titled(backtrace_, "Backtrace"));
  mid->addWidget(titled(disasm_, "Disassembly at pc"));
  auto* right_tabs = new QSplitter(Qt::Vertical);
  right_tabs->addWidget(titled(regs_, "Registers (changed since previous checkpoint)"));
  right_tabs->addWidget(titled(memory_box, "Memory (changed bytes)"));
  right_tabs->setSizes({420, 300});

  auto* panes = new QSplitter(Qt::Horizontal);
  panes->addWidget(left_tabs);
  panes->addWidget(mid);
  panes->addWidget(right_tabs);
  panes->setSizes({400, 520, 480});

  auto* center = new QSplitter(Qt::Vertical);
  center->addWidget(timeline_);
  center->addWidget(panes);
  center->setSizes({170, 700});
  setCentralWidget(center);
  status_ = new QLabel;
  statusBar()->addWidget(status_, 1);
  build_actions();
  resize(1500, 900);
  go_to(0);
}

QString MainWindow::slsdbg_path() const {
  // The CLI sits beside the UI in the build tree (cli/slsdbg) or installed.
  QString dir = QCoreApplication::applicationDirPath();
  for (QString p : {dir + "/../cli/slsdbg", dir + "/slsdbg", dir + "/../../cli/slsdbg"})
    if (QFileInfo(p).isExecutable()) return QFileInfo(p).canonicalFilePath();
  return "slsdbg";
}

void MainWindow::build_actions() {
  auto* bar = addToolBar("History");
  bar->addAction("◀ Previous", this, &MainWindow::previous)->setShortcut(Qt::Key_Left);
  bar->addAction("Next ▶", this, &MainWindow::next)->setShortcut(Qt::Key_Right);
  bar->addSeparator();
  bar->addAction("Bisect…", this, [this] {
    bool ok = false;
    QString expr = QInputDialog::getText(this, "Bisect", "Invariant (C expression over globals; or cmd:COMMAND, plugin:LIB.so):",
                                         QLineEdit::Normal, "", &ok);
    if (!ok || expr.isEmpty()) return;
    if (expr.startsWith("cmd:")) start_bisect({"--cmd", expr.mid(4)});
    else if (expr.startsWith("plugin:")) start_bisect({"--plugin", expr.mid(7)});
    else start_bisect({"--expr", expr});
  });
  bar->addAction("Open GDB here", this, [this] {
    QString rec = QString::fromStdString(h_.dir);
    QString cmd = QString("%1 replay %2 --at %3").arg(slsdbg_path(), rec).arg(current_);
    QString term = qEnvironmentVariable("TERMINAL", "x-terminal-emulator");
    if (!QProcess::startDetached(term, {"-e", "sh", "-c", cmd}))
      QMessageBox::information(this, "Open GDB here", "No terminal found ($TERMINAL). Run:\n" + cmd);
  });
  bar->addAction("Dump core here…", this, [this] {
    QString out = QFileDialog::getSaveFileName(this, "Core file", QDir::home().filePath(QString("core.%1").arg(current_)));
    if (out.isEmpty()) return;
    run_tool("Dump core", {"dump", QString::fromStdString(h_.dir), "--at", QString::number(current_), "-o", out},
             [this, out](int rc, QString text) {
               if (rc == 0) status_->setText("core written: " + out);
               else QMessageBox::warning(this, "Dump core", text);
             });
  });
  bar->addAction("Restore live process here", this, [this] {
    run_tool("Restore", {"restore", QString::fromStdString(h_.dir), "--at", QString::number(current_), "--verify"},
             [this](int rc, QString text) {
               if (rc == 0) status_->setText("restored: " + text.trimmed().section('\n', -1));
               else QMessageBox::warning(this, "Restore", text);
             });
  });
}

// Long actions are child processes of the CLI: the UI thread stays free, the
// progress dialog's Cancel kills the child, and the result is the CLI's own.
void MainWindow::run_tool(const QString& title, const QStringList& args, std::function<void(int, QString)> done) {
  auto* proc = new QProcess(this);
  auto* progress = new QProgressDialog(title + " at checkpoint " + QString::number(current_) + "…", "Cancel", 0, 0, this);
  progress->setWindowModality(Qt::WindowModal);
  progress->setMinimumDuration(300);
  proc->setProcessChannelMode(QProcess::MergedChannels);
  connect(progress, &QProgressDialog::canceled, proc, [proc] { proc->kill(); });
  connect(proc, &QProcess::finished, this, [proc, progress, done](int rc, QProcess::ExitStatus st) {
    progress->reset();
    progress->deleteLater();
    QString text = QString::fromLocal8Bit(proc->readAll());
    proc->deleteLater();
    done(st == QProcess::NormalExit ? rc : -1, st == QProcess::NormalExit ? text : QString("cancelled"));
  });
  proc->start(slsdbg_path(), args);
}

void MainWindow::start_bisect(const QStringList& invariant_args) {
  QStringList args{"bisect", QString::fromStdString(h_.dir)};
  args << invariant_args << "--json" << "--no-refine";
  run_tool("Bisect", args, [this](int rc, QString text) {
    // The JSON report is the last line that parses as an object.
    QJsonObject report;
    for (const QString& line : text.split('\n')) {
      auto doc = QJsonDocument::fromJson(line.toUtf8());
      if (doc.isObject()) report = doc.object();
    }
    if (report.contains("first_bad")) {
      bisect_ = report["first_bad"].toObject()["checkpoint"].toInteger();
      timeline_->set_bisect_result(bisect_);
      go_to(*bisect_);
      status_->setText(QString("bisect: first bad checkpoint %1").arg(*bisect_));
      emit bisect_finished(true, status_->text());
    } else {
      QString msg = QString("bisect failed (exit %1)\n%2").arg(rc).arg(text.right(2000));
      if (!qEnvironmentVariableIsSet("SLSDBG_UI_NO_DIALOGS")) QMessageBox::warning(this, "Bisect", msg);
      emit bisect_finished(false, msg);
    }
  });
}

void MainWindow::go_to(uint64_t k) {
  if (k >= h_.checkpoints.size()) return;
  auto m = load_moment(*h_.reader, k);
  if (!m.ok()) {
    status_->setText(QString::fromStdString(m.error().message));
    QMessageBox::critical(this, "slsdbg-ui", QString::fromStdString(m.error().message));
    return;
  }
  current_ = k;
  moment_ = std::move(*m);
  timeline_->set_current(k);
  fill_panes();
}

void MainWindow::show_memory(uint64_t addr) {
  addr &= ~uint64_t(15);
  auto v = load_memory(*h_.reader, current_, addr, 256);
  if (!v.ok()) {
    memory_->setPlainText(QString::fromStdString(v.error().message));
    return;
  }
  mem_ = std::move(*v);
  QString html = "<pre>";
  for (size_t row = 0; row < mem_.bytes.size(); row += 16) {
    if (row == 16 * 12) break;  // 192 bytes fit the pane; mem_ keeps all 256
    html += QString("%1  ").arg(mem_.addr + row, 12, 16, QChar('0'));
    for (size_t i = row; i < row + 16; ++i) {
      QString b = QString("%1").arg(mem_.bytes[i], 2, 16, QChar('0'));
      html += mem_.changed[i] ? "<span style='background:#ffc060'>" + b + "</span> " : b + " ";
    }
    html += " ";
    for (size_t i = row; i < row + 16; ++i) {
      char c = char(mem_.bytes[i]);
      html += (c >= 32 && c < 127) ? QString(c).toHtmlEscaped() : QString(".");
    }
    html += "\n";
  }
  memory_->setHtml(html + "</pre>");
}

QString MainWindow::memory_text() const { return memory_->toPlainText(); }
QString MainWindow::backtrace_text() const { return backtrace_->toPlainText(); }
QString MainWindow::disasm_text() const { return disasm_->toPlainText(); }

void MainWindow::fill_panes() {
  const auto& info = h_.checkpoints[current_];
  status_->setText(QString("checkpoint %1 of %2 · t=%3 s · %4 dirty pages · stopped %5 µs · reason %6")
                       .arg(current_).arg(h_.checkpoints.size() - 1).arg(double(info.time_ns) / 1e9, 0, 'f', 3)
                       .arg(info.dirty_pages).arg(info.stop_ns / 1000).arg(QString::fromStdString(info.reason)));

  // Items are reused and text is set only where it changed: a move between
  // checkpoints repaints what differs (bench/ui).
  regs_->setRowCount(int(moment_.registers.size()));
  for (size_t i = 0; i < moment_.registers.size(); ++i) {
    const auto& r = moment_.registers[i];
    for (int col = 0; col < 2; ++col) {
      QTableWidgetItem* item = regs_->item(int(i), col);
      if (!item) regs_->setItem(int(i), col, item = new QTableWidgetItem);
      QString text = col == 0 ? QString::fromStdString(r.name) : hex(r.value);
      if (item->text() != text) item->setText(text);
      QBrush bg = r.changed ? QBrush(QColor(255, 220, 120)) : QBrush();
      if (item->background() != bg) item->setBackground(bg);
    }
  }

  QString bt, dis;
  for (const auto& t : moment_.backtraces) {
    bt += QString("Thread %1%2\n").arg(t.tid.value).arg(t.error.empty() ? "" : "  (" + QString::fromStdString(t.error) + ")");
    for (size_t i = 0; i < t.frames.size(); ++i) bt += QString::fromStdString(dump::format_frame(i, t.frames[i])) + "\n";
  }
  if (!moment_.backtraces.empty())
    for (const auto& ins : moment_.backtraces[0].disasm)
      dis += QString("%1 %2  %3\n").arg(ins.at_pc ? "=>" : "  ", hex(ins.address), QString::fromStdString(ins.text));
  set_if_changed(backtrace_, bt);
  set_if_changed(disasm_, dis.isEmpty() ? "(no disassembly at this pc)" : dis);

  const auto& s = moment_.source;
  QString source_key = QString::fromStdString(s.file) + ":" + QString::number(s.line);
  if (source_key == source_key_) {
  } else if (s.lines.empty()) {
    source_->setPlainText(s.file.empty() ? "(no source line: no debug info at these frames)" : "(source " + QString::fromStdString(s.file) + " line " + QString::number(s.line) + ": no such file here)");
  } else {
    QString html = "<b>" + QString::fromStdString(s.file).toHtmlEscaped() + "</b><pre>";
    for (size_t i = 0; i < s.lines.size(); ++i) {
      int n = s.first_line + int(i);
      QString line = QString("%1  %2").arg(n, 5).arg(QString::fromStdString(s.lines[i]).toHtmlEscaped());
      html += n == s.line ? "<span style='background:#c8e6ff'>" + line + "</span>\n" : line + "\n";
    }
    source_->setHtml(html + "</pre>");
  }
  source_key_ = source_key;

  QString ev;
  for (const auto& e : moment_.events) ev += QString("%1  %2\n").arg(hex(e.pc), QString::fromStdString(event_label(e)));
  set_if_changed(events_, ev.isEmpty() ? QString("(no events between checkpoint %1 and the next)").arg(current_)
                                     : QString("events after checkpoint %1:\n").arg(current_) + ev);

  QString pr = QString("pid %1  exe %2\n\nthreads:\n").arg(moment_.state.pid).arg(QString::fromStdString(moment_.state.exe));
  for (const auto& t : moment_.state.threads) pr += QString("  tid %1  rip %2\n").arg(t.tid.value).arg(hex(t.regs.rip));
  pr += "\nfiles:\n";
  for (const auto& f : moment_.state.fds) pr += QString("  %1  %2\n").arg(f.fd, 3).arg(QString::fromStdString(f.path));
  pr += "\nmaps:\n";
  for (const auto& m : moment_.state.mappings)
    pr += QString("  %1-%2 %3%4%5 %6\n").arg(m.start, 12, 16, QChar('0')).arg(m.end, 12, 16, QChar('0'))
              .arg(m.prot & 1 ? 'r' : '-').arg(m.prot & 2 ? 'w' : '-').arg(m.prot & 4 ? 'x' : '-')
              .arg(QString::fromStdString(m.path));
  set_if_changed(process_, pr);

  // The memory view follows rsp until an address is typed into its box.
  show_memory(follow_rsp_ ? moment_.state.threads[0].regs.rsp : mem_.addr);
}

}  // namespace slsdbg::ui
