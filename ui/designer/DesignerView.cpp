#include "DesignerView.h"

#include "Theme.h"

#include <QKeyEvent>
#include <QScrollBar>
#include <QWheelEvent>

namespace hips {

DesignerView::DesignerView(QGraphicsScene* scene, QWidget* parent) : QGraphicsView(scene, parent) {
    setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing);
    setDragMode(RubberBandDrag);
    setAcceptDrops(true);
    setTransformationAnchor(AnchorUnderMouse);
    // The boxes stay light (their role colours read on them); the canvas around them follows a dark palette.
    setBackgroundBrush(isDarkPalette(palette()) ? palette().color(QPalette::Base) : QColor(0xfc, 0xfc, 0xfd));
}

void DesignerView::resizeEvent(QResizeEvent* event) {
    QGraphicsView::resizeEvent(event);
    if (m_autoFit) fit();
}

void DesignerView::zoomBy(qreal factor) {
    m_autoFit = false;
    const qreal current = transform().m11();
    const qreal target = std::clamp(current * factor, 0.2, 4.0);
    scale(target / current, target / current);
}

void DesignerView::fit() {
    if (!scene() || scene()->items().isEmpty()) return;
    fitInView(scene()->itemsBoundingRect().adjusted(-30, -30, 30, 30), Qt::KeepAspectRatio);
    if (transform().m11() > 1.3) setTransform(QTransform::fromScale(1.3, 1.3));
}

void DesignerView::wheelEvent(QWheelEvent* e) {
    if (!(e->modifiers() & Qt::ControlModifier)) return QGraphicsView::wheelEvent(e);
    zoomBy(e->angleDelta().y() > 0 ? 1.15 : 1 / 1.15);
    e->accept();
}

void DesignerView::mousePressEvent(QMouseEvent* e) {
    if (e->button() == Qt::MiddleButton || (e->button() == Qt::LeftButton && m_spaceHeld)) {
        m_panning = true;
        m_autoFit = false;
        m_lastPan = e->position().toPoint();
        setCursor(Qt::ClosedHandCursor);
        e->accept();
        return;
    }
    QGraphicsView::mousePressEvent(e);
}

void DesignerView::mouseMoveEvent(QMouseEvent* e) {
    if (!m_panning) return QGraphicsView::mouseMoveEvent(e);
    const QPoint delta = e->position().toPoint() - m_lastPan;
    m_lastPan = e->position().toPoint();
    horizontalScrollBar()->setValue(horizontalScrollBar()->value() - delta.x());
    verticalScrollBar()->setValue(verticalScrollBar()->value() - delta.y());
}

void DesignerView::mouseReleaseEvent(QMouseEvent* e) {
    if (!m_panning) return QGraphicsView::mouseReleaseEvent(e);
    m_panning = false;
    unsetCursor();
}

void DesignerView::keyPressEvent(QKeyEvent* e) {
    if (e->key() == Qt::Key_Space && !e->isAutoRepeat()) m_spaceHeld = true;
    QGraphicsView::keyPressEvent(e);
}

void DesignerView::keyReleaseEvent(QKeyEvent* e) {
    if (e->key() == Qt::Key_Space && !e->isAutoRepeat()) m_spaceHeld = false;
    QGraphicsView::keyReleaseEvent(e);
}

}  // namespace hips
