// The history across the window: checkpoints along real time, a heat strip of
// dirty pages, stop times, event marks, bookmarks and the bisect result.
// Click or drag to scrub; the wheel zooms around the cursor.
#pragma once

#include <QWidget>
#include <optional>

#include "ui/model/history.h"

namespace slsdbg::ui {

class Timeline : public QWidget {
  Q_OBJECT
 public:
  explicit Timeline(const History& history, QWidget* parent = nullptr);
  void set_current(uint64_t k);
  void set_bisect_result(std::optional<uint64_t> k);
  QSize sizeHint() const override { return {1200, 150}; }

 signals:
  void picked(uint64_t k);

 protected:
  void paintEvent(QPaintEvent*) override;
  void mousePressEvent(QMouseEvent*) override;
  void mouseMoveEvent(QMouseEvent*) override;
  void wheelEvent(QWheelEvent*) override;

 private:
  double x_of(uint64_t time_ns) const;
  uint64_t checkpoint_at(double x) const;
  const History& h_;
  uint64_t current_ = 0;
  std::optional<uint64_t> bisect_;
  double view_start_ = 0, view_len_ = 1;  // fraction of [0, end_ns] shown
};

}  // namespace slsdbg::ui
