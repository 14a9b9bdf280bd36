#include "ui/app/timeline.h"

#include <QMouseEvent>
#include <QPainter>
#include <QWheelEvent>
#include <algorithm>

namespace slsdbg::ui {

namespace {
constexpr int kLeft = 90, kRight = 12;
constexpr int kTicksY = 26, kHeatY = 34, kHeatH = 30, kStopY = 70, kStopH = 22, kEventY = 98, kEventH = 16, kMarkY = 120;

QColor event_color(store::EventKind k) {
  switch (k) {
    case store::EventKind::Signal: return QColor(220, 50, 50);
    case store::EventKind::Exit: return QColor(0, 0, 0);
    case store::EventKind::ForcedCheckpoint: return QColor(160, 60, 200);
    case store::EventKind::Rdtsc: return QColor(230, 150, 0);
    default: return QColor(40, 110, 220);
  }
}
}  // namespace

Timeline::Timeline(const History& history, QWidget* parent) : QWidget(parent), h_(history) {
  setMinimumHeight(150);
  setMouseTracking(false);
}

void Timeline::set_current(uint64_t k) {
  current_ = k;
  // Keep the current checkpoint in view when zoomed in.
  double f = double(h_.checkpoints[k].time_ns) / double(h_.end_ns);
  if (f < view_start_ || f > view_start_ + view_len_) view_start_ = std::clamp(f - view_len_ / 2, 0.0, 1.0 - view_len_);
  update();
}

void Timeline::set_bisect_result(std::optional<uint64_t> k) {
  bisect_ = k;
  update();
}

double Timeline::x_of(uint64_t t) const {
  double f = (double(t) / double(h_.end_ns) - view_start_) / view_len_;
  return kLeft + f * (width() - kLeft - kRight);
}

uint64_t Timeline::checkpoint_at(double x) const {
  double f = view_start_ + (x - kLeft) / double(width() - kLeft - kRight) * view_len_;
  uint64_t t = uint64_t(std::max(0.0, f) * double(h_.end_ns));
  auto it = std::lower_bound(h_.checkpoints.begin(), h_.checkpoints.end(), t,
                             [](const store::CheckpointInfo& c, uint64_t v) { return c.time_ns < v; });
  if (it == h_.checkpoints.end()) return h_.checkpoints.size() - 1;
  if (it != h_.checkpoints.begin() && t - std::prev(it)->time_ns < it->time_ns - t) --it;
  return it - h_.checkpoints.begin();
}

void Timeline::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.fillRect(rect(), QColor(250, 250, 250));
  QFont small = font();
  small.setPointSizeF(small.pointSizeF() * 0.85);
  p.setFont(small);
  p.setPen(QColor(60, 60, 60));
  p.drawText(4, kHeatY + 20, "dirty pages");
  p.drawText(4, kStopY + 15, "stop time");
  p.drawText(4, kEventY + 12, "events");
  p.drawText(4, kMarkY + 12, "marks");
  p.drawText(4, kTicksY - 8, QString("%1 checkpoints over %2 s · heat: dirty pages (max %3) · events: ")
                                 .arg(h_.checkpoints.size()).arg(double(h_.end_ns) / 1e9, 0, 'f', 2).arg(h_.max_dirty));
  int lx = 4 + p.fontMetrics().horizontalAdvance(QString("%1 checkpoints over %2 s · heat: dirty pages (max %3) · events: ")
                                                     .arg(h_.checkpoints.size()).arg(double(h_.end_ns) / 1e9, 0, 'f', 2).arg(h_.max_dirty));
  for (auto [kind, name] : {std::pair{store::EventKind::Syscall, "syscall"}, {store::EventKind::Signal, "signal"},
                            {store::EventKind::Rdtsc, "rdtsc"}, {store::EventKind::ForcedCheckpoint, "forced"},
                            {store::EventKind::Exit, "exit"}}) {
    p.fillRect(lx, kTicksY - 17, 10, 10, event_color(kind));
    p.setPen(QColor(60, 60, 60));
    p.drawText(lx + 13, kTicksY - 8, name);
    lx += 20 + p.fontMetrics().horizontalAdvance(name);
  }

  uint64_t max_stop = 1;
  for (const auto& c : h_.checkpoints) max_stop = std::max(max_stop, c.stop_ns);
  const double w = width() - kLeft - kRight;
  const size_t n = h_.checkpoints.size();
  for (size_t i = 0; i < n; ++i) {
    const auto& c = h_.checkpoints[i];
    double x0 = x_of(c.time_ns);
    double x1 = i + 1 < n ? x_of(h_.checkpoints[i + 1].time_ns) : kLeft + w;
    if (x1 < kLeft || x0 > kLeft + w) continue;
    x0 = std::max<double>(x0, kLeft);
    x1 = std::min(std::max(x1, x0 + 1), kLeft + w);
    // Heat: white (few pages) to deep red (the most pages of any checkpoint).
    double heat = std::sqrt(double(c.dirty_pages) / double(h_.max_dirty));
    p.fillRect(QRectF(x0, kHeatY, x1 - x0, kHeatH), QColor(255, int(235 - 200 * heat), int(200 - 190 * heat)));
    double sh = kStopH * double(c.stop_ns) / double(max_stop);
    p.fillRect(QRectF(x0, kStopY + kStopH - sh, std::max(1.0, (x1 - x0) * 0.6), sh), QColor(90, 90, 160));
    if (n < 400) {
      p.setPen(QColor(150, 150, 150));
      p.drawLine(QPointF(x0, kTicksY), QPointF(x0, kTicksY + 8));
    }
  }
  for (const auto& m : h_.marks) {
    double x = x_of(h_.checkpoints[m.segment].time_ns) + 2;
    if (x < kLeft || x > kLeft + w) continue;
    p.setPen(QPen(event_color(m.kind), 2));
    p.drawLine(QPointF(x, kEventY), QPointF(x, kEventY + kEventH));
  }
  for (const auto& [name, moment] : h_.bookmarks) {
    auto k = moment_checkpoint(moment);
    if (!k || *k >= n) continue;
    double x = x_of(h_.checkpoints[*k].time_ns);
    p.setPen(QColor(0, 130, 0));
    p.drawText(QPointF(x + 2, kMarkY + 12), QString("★ ") + QString::fromStdString(name));
  }
  if (bisect_ && *bisect_ < n) {
    double x = x_of(h_.checkpoints[*bisect_].time_ns);
    p.setPen(QPen(QColor(200, 0, 160), 2, Qt::DashLine));
    p.drawLine(QPointF(x, kTicksY), QPointF(x, kMarkY));
    p.drawText(QPointF(x + 3, kMarkY + 26), QString("bisect: first bad = %1").arg(*bisect_));
  }
  double cx = x_of(h_.checkpoints[current_].time_ns);
  p.setPen(QPen(QColor(0, 0, 0), 2));
  p.drawLine(QPointF(cx, kTicksY - 4), QPointF(cx, kMarkY + 16));
  p.fillRect(QRectF(std::min(cx + 3, double(width() - 230)), kHeatY + 2, 225, 16), QColor(255, 255, 255, 220));
  p.drawText(QPointF(std::min(cx + 6, double(width() - 227)), kHeatY + 14),
             QString("checkpoint %1 · %2 ms · %3 pages").arg(current_).arg(double(h_.checkpoints[current_].time_ns) / 1e6, 0, 'f', 1)
                 .arg(h_.checkpoints[current_].dirty_pages));
}

void Timeline::mousePressEvent(QMouseEvent* e) { emit picked(checkpoint_at(e->position().x())); }
void Timeline::mouseMoveEvent(QMouseEvent* e) {
  if (e->buttons() & Qt::LeftButton) emit picked(checkpoint_at(e->position().x()));
}

void Timeline::wheelEvent(QWheelEvent* e) {
  double w = width() - kLeft - kRight;
  double at = view_start_ + (e->position().x() - kLeft) / w * view_len_;
  double len = std::clamp(view_len_ * (e->angleDelta().y() > 0 ? 0.8 : 1.25), 1e-4, 1.0);
  view_start_ = std::clamp(at - (at - view_start_) * len / view_len_, 0.0, 1.0 - len);
  view_len_ = len;
  update();
}

}  // namespace slsdbg::ui
