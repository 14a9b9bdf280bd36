// The main window: the timeline on top, panes for the selected checkpoint
// below, and the actions (bisect, GDB here, restore, dump) that run off the
// UI thread with a progress dialog and Cancel.
#pragma once

#include <QMainWindow>
#include <QProcess>

#include "ui/model/history.h"
#include "ui/model/moment.h"

class QLineEdit;
class QPlainTextEdit;
class QTableWidget;
class QTextEdit;
class QLabel;

namespace slsdbg::ui {

class Timeline;

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  explicit MainWindow(History history, QWidget* parent = nullptr);
  uint64_t current() const { return current_; }
  const History& history() const { return h_; }
  const Moment& moment() const { return moment_; }

  // Shown pane text, for the tests and the bench.
  QTableWidget* registers() const { return regs_; }
  QString backtrace_text() const;
  QString disasm_text() const;
  QString memory_text() const;
  const MemoryView& memory_view() const { return mem_; }
  void show_memory(uint64_t addr);

  // Runs `slsdbg bisect` off the UI thread; the result is marked and selected.
  void start_bisect(const QStringList& invariant_args);
  std::optional<uint64_t> bisect_result() const { return bisect_; }

 public slots:
  void go_to(uint64_t k);
  void next() { if (current_ + 1 < h_.checkpoints.size()) go_to(current_ + 1); }
  void previous() { if (current_ > 0) go_to(current_ - 1); }

 signals:
  void bisect_finished(bool ok, QString message);

 private:
  void build_actions();
  void run_tool(const QString& title, const QStringList& args, std::function<void(int, QString)> done);
  void fill_panes();
  QString slsdbg_path() const;

  History h_;
  uint64_t current_ = 0;
  Moment moment_;
  MemoryView mem_;
  std::optional<uint64_t> bisect_;
  Timeline* timeline_ = nullptr;
  QTableWidget* regs_ = nullptr;
  QPlainTextEdit* backtrace_ = nullptr;
  QPlainTextEdit* disasm_ = nullptr;
  QTextEdit* source_ = nullptr;
  QTextEdit* memory_ = nullptr;
  QLineEdit* address_ = nullptr;
  QPlainTextEdit* events_ = nullptr;
  QPlainTextEdit* process_ = nullptr;
  QLabel* status_ = nullptr;
  bool follow_rsp_ = true;
  QString source_key_;  // file:line shown in source_
};

}  // namespace slsdbg::ui
