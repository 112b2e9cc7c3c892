#pragma once
// The canvas: Ctrl+wheel zooms about the cursor, the middle button (or Space + drag) pans,
// a rubber band selects several items, fit() shows everything.
#include <QGraphicsView>

namespace hips {

class DesignerView : public QGraphicsView {
    Q_OBJECT
public:
    explicit DesignerView(QGraphicsScene* scene, QWidget* parent = nullptr);
    void zoomBy(qreal factor);
    void fit();
    // Until the user zooms or pans, the view keeps the whole topology in sight as it changes size.
    void setAutoFit(bool on) { m_autoFit = on; }

protected:
    void wheelEvent(QWheelEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    void keyReleaseEvent(QKeyEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;

private:
    bool m_panning = false, m_spaceHeld = false, m_autoFit = true;
    QPoint m_lastPan;
};

}  // namespace hips
